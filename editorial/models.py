"""The editorial desk's own records: the workflow's audit log and its permissions.

Content lives in `glossary`; this app only records what people did to it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from editorial.newsroom import format_instant
from glossary.models import Entry, EntryVersion, Show


class WorkflowEvent(models.Model):
    """One row per workflow transition: who, when, from which state to which, and why.

    Rows are only ever added (see editorial.workflow); the admin shows them read-only.
    The model also carries the workflow's custom permissions, which the roles
    (editorial.permissions.ROLES) are made of.
    """

    class Action(models.TextChoices):
        SUBMIT = "submit", "Submitted for review"
        REQUEST_CHANGES = "request_changes", "Changes requested"
        PUBLISH = "publish", "Published"
        PUBLISH_CHECK_DATES = "publish_check_dates", "Published new check dates"
        UNPUBLISH = "unpublish", "Unpublished"
        ARCHIVE = "archive", "Archived"
        RESTORE = "restore", "Restored from the archive"
        ROLLBACK = "rollback", "Rolled back"
        FACT_CHECK = "fact_check", "Fact-checked"
        # Assignments (editorial.assignments): the entry's state does not change.
        ASSIGN = "assign", "Assigned"
        REASSIGN = "reassign", "Reassigned"
        ASSIGNMENT_DONE = "assignment_done", "Assignment done"
        MERGE_REFUSED = "merge_refused", "Merged a refused edit"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="workflow_events")
    version = models.ForeignKey(
        EntryVersion,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="workflow_events",
        help_text="The version published, the one rolled back to, or the one a fact-check saved.",
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    from_status = models.CharField(max_length=20, choices=Entry.Status.choices)
    to_status = models.CharField(max_length=20, choices=Entry.Status.choices)
    # Kept with the account (PROTECT): who submitted or rolled back counts as an author of
    # the change (editorial.workflow.change_authors), as EntryVersion.created_by does.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField(default=timezone.now)
    comment = models.TextField(blank=True)
    override_reason = models.TextField(
        blank=True, help_text="Why an editor published although blocking checks failed."
    )
    overridden_checks = models.JSONField(
        default=list,
        blank=True,
        help_text="The blocking checks that failed when the editor overrode them: "
        "code and message of each, as they read at that moment.",
    )

    class Meta:
        ordering = ["-at", "-pk"]
        get_latest_by = "at"
        indexes = [
            # The entry's history page and "latest review comment" read an entry's newest events.
            models.Index(fields=["entry", "-at"], name="workflowevent_entry_recent_idx"),
        ]
        permissions = [
            ("edit_content", "Can write and edit entry content"),
            ("submit_entry", "Can submit an entry for review"),
            ("review_entry", "Can review an entry and request changes"),
            ("publish_entry", "Can publish an entry"),
            ("override_gates", "Can publish despite failing checks, with a written reason"),
            ("unpublish_entry", "Can unpublish an entry"),
            ("archive_entry", "Can archive and restore an entry"),
            ("schedule_entry", "Can schedule publishing and unpublishing"),
            ("rollback_entry", "Can roll an entry back to an earlier version"),
            ("confirm_citation", "Can confirm citations (checked on / checked by)"),
            ("share_preview", "Can create share links for previews"),
            ("assign_entry", "Can assign entries to writers and fact-checkers"),
        ]

    def __str__(self) -> str:
        return f"{self.entry}: {self.get_action_display()} ({self.from_status} → {self.to_status})"


# --- Publish gates, scheduled publishing and the dashboard (editorial.gates,
# editorial.scheduling, editorial.dashboard). -------------------------------------


class InterestDisclosureWaiver(models.Model):
    """An editor's decision that a quoted guest's organisation needs no disclosure here.

    The interest gate (editorial.gates) stops warning about `organisation` on `entry`.
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="interest_waivers")
    organisation = models.ForeignKey(
        "glossary.Organisation", on_delete=models.CASCADE, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(default=timezone.now)
    reason = models.TextField(blank=True, help_text="Why no disclosure is needed, for the record.")

    class Meta:
        verbose_name = "interest disclosure marked not needed"
        verbose_name_plural = "interest disclosures marked not needed"
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "organisation"], name="interestwaiver_unique_per_entry"
            )
        ]

    def __str__(self) -> str:
        return f"No disclosure needed for {self.organisation} on {self.entry}"


class ScheduledAction(models.Model):
    """A publish or unpublish an editor asked for at a future time.

    `due_at` is stored in UTC and entered/shown in settings.NEWSROOM_TIME_ZONE.
    The beat task (editorial.scheduling.run_due) claims a pending row with a
    conditional UPDATE, so it is carried out exactly once however many
    schedulers run.
    """

    class Action(models.TextChoices):
        PUBLISH = "publish", "Publish"
        UNPUBLISH = "unpublish", "Unpublish"

    class State(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="scheduled_actions")
    action = models.CharField(max_length=10, choices=Action.choices, default=Action.PUBLISH)
    due_at = models.DateTimeField(
        "when", help_text="The entry is published (or unpublished) at the first run after this."
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    version = models.PositiveIntegerField(
        "version approved",
        null=True,
        blank=True,
        editable=False,
        help_text="For a publish: the entry's version when it was scheduled, which the "
        "scheduling editor approved. If anyone saves the entry before it is due, it is not "
        "published: review the new version and schedule again.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Each save of a waiting row approves what it will do again, so the scheduler acts as
    # whoever saved it last, not as who first made it: otherwise an editor who wrote a
    # change could re-save (or re-target) another editor's schedule and have their own
    # version published under that editor's name.
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        help_text="Who last saved this schedule, approving the version it publishes. It is "
        "carried out as them, and refused if they wrote part of the change.",
    )
    seen_event = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The entry's newest workflow event when the schedule was saved: if the entry "
        "is unpublished, archived or sent back after it, the publish does not happen.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.TextField(blank=True, help_text="What happened, in words, when it ran.")
    failures = models.JSONField(
        default=list, blank=True, help_text="The blocking checks that stopped it, if any."
    )

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [
            # editorial.scheduling.run_due: the pending rows that are due.
            models.Index(fields=["state", "due_at"], name="scheduledaction_due_idx"),
        ]
        constraints = [
            # One waiting publish (or unpublish) per entry; a second would race the first.
            models.UniqueConstraint(
                fields=["entry", "action"],
                condition=models.Q(state="pending"),
                name="scheduledaction_one_pending_per_entry",
            )
        ]

    def __str__(self) -> str:
        # The change message, the admin log and the page's title name a row by it: in
        # newsroom time, as the form it was typed in.
        return f"{self.get_action_display()} {self.entry} at {format_instant(self.due_at)}"


class SchedulerHeartbeat(models.Model):
    """When a periodic job last ran; the dashboard warns when it is late (beat down)."""

    name = models.CharField(max_length=100, unique=True)
    last_run_at = models.DateTimeField()
    last_result = models.CharField(max_length=300, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ran at {format_instant(self.last_run_at)}"


class ShareLink(models.Model):
    """A link that shows one version to someone outside the desk, without signing in.

    The signed token in the link names this row (editorial.preview); the row says
    whether it still works. Links die when the entry is unpublished, archived or
    deleted, and anyone who may share previews can revoke one from the entry.
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="share_links")
    version = models.ForeignKey(EntryVersion, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_because = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Preview of {self.entry} v{self.version.number}"


class QuoteCheckRun(models.Model):
    """One run of the bulk check of every quote against the transcripts, with its progress.

    The task (editorial.tasks.verify_all_quotes) claims the run, then adds to `done`
    and `counts` after each batch of episodes, so its progress can be watched in the
    admin while it runs (editorial.quote_verification_runs).
    """

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.PositiveIntegerField(
        default=0, help_text="Quotes and quoted phrases to check, counted when the run starts."
    )
    done = models.PositiveIntegerField(default=0, help_text="Checked so far.")
    counts = models.JSONField(default=dict, blank=True, help_text="Checked so far, by verdict.")
    problems = models.JSONField(
        default=list,
        blank=True,
        help_text="The first quotes not found, said elsewhere or by someone else "
        "(as verify_quotes --json writes them).",
    )
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "quote check run"

    def __str__(self) -> str:
        return f"Quote check {format_instant(self.created_at)} ({self.get_state_display()})"

    @property
    def percent(self) -> int:
        return 100 if not self.total else min(100, self.done * 100 // self.total)


# --- What cited sources said (editorial.sourcetext; docs/sources.md) ----------------------


class SourceText(models.Model):
    """One main text a source page served, stored once however many sources and checks saw it.

    Deduplicated by the SHA-256 of the text (editorial.sourcetext.store): many
    citations, one text. Kept while a confirmation names it or it is among the
    latest SOURCETEXT_KEEP_LATEST of a source (editorial.sourcetext.service.prune).
    """

    content_hash = models.CharField(max_length=64, unique=True)
    compressed = models.BinaryField(help_text="The text, zlib-compressed UTF-8.")
    size = models.PositiveIntegerField(help_text="Length of the text in UTF-8 bytes.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "stored source text"

    def __str__(self) -> str:
        return f"text {self.content_hash[:12]} ({self.size} bytes)"


class SourceSnapshot(models.Model):
    """A source's history: when a fetch of its page served which text (and fingerprint)."""

    source = models.ForeignKey(
        "glossary.Source", on_delete=models.CASCADE, related_name="snapshots"
    )
    content_hash = models.CharField(max_length=64)
    # Empty once retention dropped the text; the row stays as history until it ages out.
    text = models.ForeignKey(
        SourceText, on_delete=models.SET_NULL, null=True, blank=True, related_name="snapshots"
    )
    fetched_at = models.DateTimeField(default=timezone.now)
    fingerprint = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-fetched_at", "-pk"]
        get_latest_by = "fetched_at"
        indexes = [
            # The latest text of a source (confirmation ties, the diff, retention).
            models.Index(fields=["source", "-fetched_at"], name="snapshot_source_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} at {format_instant(self.fetched_at)}"


class SourceHealthChange(models.Model):
    """One change of a source's link health, written with the check that made it.

    The link checker (editorial.linkcheck.service.record) adds a row in the same
    transaction as the LinkCheck and the Source update whenever a check moves
    `Source.health`, so "what state was this source in on a given day" is read,
    not worked out again from the checks. Only ever added; desk-only (no public
    view reads it). Kept when LinkCheck history is pruned: one row per change is
    small, and the dashboard's chart needs the state a source was already in.
    """

    source = models.ForeignKey(
        "glossary.Source", on_delete=models.CASCADE, related_name="health_changes"
    )
    # The URL that was checked: a source's address can be edited later.
    url = models.CharField(max_length=2000)
    at = models.DateTimeField(help_text="When the check that changed the health was made.")
    from_health = models.CharField(max_length=20)
    to_health = models.CharField(max_length=20)
    outcome = models.CharField(max_length=20, help_text="The outcome of that check.")
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, help_text="The check's own words, when it failed.")

    class Meta:
        ordering = ["-at", "-pk"]
        get_latest_by = "at"
        indexes = [
            # The source admin's list of changes and the chart's state at its first week.
            models.Index(fields=["source", "-at"], name="healthchange_source_recent_idx"),
            # The dashboard chart's changes within its twelve weeks.
            models.Index(fields=["at"], name="healthchange_at_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id}: {self.from_health} → {self.to_health} at {self.at}"


class CitationConfirmation(models.Model):
    """A fact-checker confirmed a citation: which text of its source that confirmation saw.

    The latest row of a citation is what "changed since confirmed" compares the
    source's current text with. `text` is empty only when the page could not be
    read when it was confirmed (dead, not text, refused).
    """

    # The citation by its identity (one per entry and source), not its row: rolling an
    # entry back recreates its citation rows, and the confirmations must survive that.
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    source = models.ForeignKey(
        "glossary.Source", on_delete=models.CASCADE, related_name="confirmations"
    )
    text = models.ForeignKey(
        SourceText,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="confirmations",
        help_text="The source's main text as last fetched when the citation was confirmed.",
    )
    fingerprint = models.CharField(max_length=64, blank=True)
    confirmed_on = models.DateField(help_text="The citation's “checked on” date.")
    confirmed_at = models.DateTimeField(default=timezone.now)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-confirmed_at", "-pk"]
        get_latest_by = "confirmed_at"
        indexes = [
            # A citation's latest confirmation; a source's confirmed texts (the diff, retention).
            models.Index(
                fields=["entry", "source", "-confirmed_at"], name="confirmation_recent_idx"
            ),
            models.Index(fields=["source", "-confirmed_at"], name="confirmation_source_idx"),
        ]

    def __str__(self) -> str:
        return f"Source {self.source_id} of entry {self.entry_id} confirmed on {self.confirmed_on}"


# --- Email notifications (editorial.notify; docs/notifications.md) -----------------------


class NotificationPreference(models.Model):
    """How one person wants to hear about work that needs them.

    A person without a row gets settings.NOTIFY_DEFAULT_DELIVERY.
    """

    class Delivery(models.TextChoices):
        IMMEDIATE = "immediate", "Email me as it happens"
        DAILY = "daily", "One daily digest"
        OFF = "off", "No email"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    delivery = models.CharField(
        max_length=10,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATE,
        help_text="As it happens: review requests, publications and link trouble arrive "
        "within minutes (link trouble gathered into one email per run). Daily: everything "
        "in one email a day. No email: nothing is sent; the dashboard still lists it all.",
    )
    last_digest_at = models.DateTimeField(
        null=True, blank=True, help_text="When this person's last daily digest was sent."
    )
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.user}: {self.get_delivery_display()}"


class Notification(models.Model):
    """Something one person should hear about, waiting for (or done with) delivery.

    Written in the same transaction as what it tells about; editorial.notify sends
    a person's waiting rows together in one email, so a link-check run that
    changes a hundred sources is one message, not a hundred.
    """

    class Kind(models.TextChoices):
        REVIEW_REQUESTED = "review_requested", "Review requested"
        CHANGES_REQUESTED = "changes_requested", "Changes requested"
        PUBLISHED = "published", "Published"
        SCHEDULE_FAILED = "schedule_failed", "Scheduled action failed"
        SOURCE_CHANGED = "source_changed", "Cited source needs a look"
        MENTIONED = "mentioned", "Mentioned in a comment"
        ASSIGNED = "assigned", "Assigned to you"

    class Outcome(models.TextChoices):
        WAITING = "", "Waiting"
        EMAILED = "emailed", "Emailed"
        DIGEST = "digest", "Sent in a daily digest"
        DROPPED = "dropped", "Not sent (email turned off)"
        FAILED = "failed", "Not sent (delivery failed)"

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    source = models.ForeignKey(
        "glossary.Source", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    subject = models.CharField(max_length=300)
    text = models.TextField(help_text="The plain-text paragraph this adds to the email.")
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(
        "done at",
        null=True,
        blank=True,
        help_text="When delivery ended: emailed, dropped or given up (the outcome says "
        "which). Empty while it waits.",
    )
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True, default="")
    # Delivery failures (editorial.notify): a message the mail server refused for a passing
    # reason waits and is tried again; one that can never go is given up at once.
    attempts = models.PositiveSmallIntegerField(
        "failed attempts", default=0, help_text="How many times sending it failed."
    )
    failed_at = models.DateTimeField(
        "failing since",
        null=True,
        blank=True,
        help_text="When sending it first failed.",
    )
    error = models.TextField(
        blank=True, help_text="Why the latest attempt failed, as the mail server or Django said."
    )

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            # editorial.notify.deliver: each person's waiting rows.
            models.Index(
                fields=["recipient", "created_at"],
                condition=models.Q(sent_at__isnull=True),
                name="notification_waiting_idx",
            ),
            # The dashboard's "Email that could not be sent": failed rows, newest first.
            models.Index(
                fields=["-failed_at"],
                condition=models.Q(failed_at__isnull=False),
                name="notification_failed_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.recipient}: {self.subject}"


# --- Comments on drafts (editorial.comments) ---------------------------------------------


class Comment(models.Model):
    """One comment in a thread on an entry: the desk's conversation, never the readers'.

    A thread is a root comment (no `parent`) and its replies, in order; the root
    holds the anchor (the field, and for the summary or body a quoted passage) and
    whether the thread is resolved. Each comment names the version that was the
    entry's latest when it was written. Nothing here is in a version's document, so
    no comment can reach a public page, the API or a feed; editorial.comments
    writes these rows and nothing else.
    """

    class Field(models.TextChoices):
        TERM = "term", "Term"
        ALIASES = "aliases", "Aliases"
        SUMMARY = "summary", "Summary"
        BODY = "body", "Body"
        TAGS = "tags", "Tags"
        EPISODE_REFERENCES = "episode_references", "Episode references"
        DISCLOSURES = "disclosures", "Disclosures"
        QUOTES = "quotes", "Quotes"
        CITATIONS = "citations", "Citations"
        SEE_ALSO = "see_also", "See also"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="comments")
    version = models.ForeignKey(
        EntryVersion,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="comments",
        help_text="The entry's latest version when this was written (none for an entry "
        "never saved as a version).",
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="replies",
        help_text="The thread's first comment; empty for that first comment itself.",
    )
    field = models.CharField(
        max_length=20,
        choices=Field.choices,
        help_text="The part of the entry the thread is about.",
    )
    quote = models.TextField(
        blank=True,
        help_text="The passage of the summary or body the thread is about, as it read when "
        "the thread began. Empty: the whole field.",
    )
    text = models.TextField()
    # Kept with the account (PROTECT), like the workflow's audit log: a desk member who
    # leaves is deactivated, and what they said stays credited to them.
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    edited_at = models.DateTimeField(
        null=True, blank=True, help_text="When its author last changed the text."
    )
    resolved_at = models.DateTimeField(
        null=True, blank=True, help_text="When the thread was resolved; empty while it is open."
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            # The publish check and the entry page's panel: an entry's open threads.
            models.Index(
                fields=["entry"],
                condition=models.Q(parent__isnull=True, resolved_at__isnull=True),
                name="comment_open_thread_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author} on {self.entry} ({self.get_field_display()})"

    @property
    def is_resolved(self) -> bool:
        return self.resolved_at is not None


class ArchiveRequest(models.Model):
    """A request to the Wayback Machine to save a confirmed source's page (editorial.archive).

    The desk's bookkeeping only: readers never read it. A capture that succeeds is
    written to the source's `archive_url` and `archive_date` and recorded as a version
    of every entry citing it, so it reaches readers with the next publish by someone
    else (docs/archive.md).
    """

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        CAPTURING = "capturing", "Capturing (waiting for the Wayback Machine)"
        SAVED = "saved", "Saved"
        FAILED = "failed", "Failed"

    source = models.ForeignKey(
        "glossary.Source", on_delete=models.CASCADE, related_name="archive_requests"
    )
    # The URL as confirmed: a capture of any other address is never used.
    url = models.URLField(max_length=2000)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # Not before this instant: the next send (queued) or status poll (capturing).
    next_attempt_at = models.DateTimeField(default=timezone.now)
    # When the capture request last went out: the rate limit counts these.
    sent_at = models.DateTimeField(null=True, blank=True)
    # The Wayback Machine asked us to slow down (429): nothing is sent before this.
    limited_until = models.DateTimeField(null=True, blank=True)
    job_id = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Capture requests that failed for a passing reason."
    )
    polls = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    archive_url = models.URLField(max_length=2000, blank=True)
    captured_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            # Confirming a source again while its capture is under way asks for nothing more.
            models.UniqueConstraint(
                fields=["source"],
                condition=models.Q(state__in=["queued", "capturing"]),
                name="archive_one_open_request_per_source",
            )
        ]
        indexes = [
            # editorial.archive.run_due: the open requests due now, oldest first.
            models.Index(fields=["state", "next_attempt_at"], name="archive_due_idx"),
            # The rate limit: capture requests sent in the last minute.
            models.Index(fields=["sent_at"], name="archive_sent_idx"),
        ]

    def __str__(self) -> str:
        return f"Archive of {self.url} ({self.get_state_display()})"


# --- Assignments and the calendar (editorial.assignments; docs/assignments.md) ------------


class Assignment(models.Model):
    """One person asked to write or fact-check an entry by a date.

    The desk's planning only: nothing here is in a version's document, and
    editorial.assignments writes these rows without touching the entry, so an
    assignment never changes what readers see. An entry has at most one open
    assignment per role; reassigning changes that row, and each step is a
    WorkflowEvent in the entry's history.
    """

    class Role(models.TextChoices):
        WRITER = "writer", "Writer"
        FACT_CHECKER = "fact_checker", "Fact-checker"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="assignments")
    role = models.CharField(max_length=20, choices=Role.choices)
    # Kept with the account (PROTECT), like the audit log: who was asked stays on record.
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments"
    )
    due_on = models.DateField(
        "due", help_text="The day it is due, in the newsroom's zone (it is overdue the day after)."
    )
    note = models.TextField(blank=True, help_text="What is asked, for the assignee.")
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    assigned_at = models.DateTimeField(default=timezone.now)
    done_at = models.DateTimeField(null=True, blank=True)
    done_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["due_on", "pk"]
        constraints = [
            # One open assignment per entry and role: a second would leave two people
            # thinking the same work is theirs.
            models.UniqueConstraint(
                fields=["entry", "role"],
                condition=models.Q(done_at__isnull=True),
                name="assignment_one_open_per_role",
            )
        ]
        indexes = [
            # "My work" and the person's calendar feed: a person's open assignments by date.
            models.Index(
                fields=["assignee", "due_on"],
                condition=models.Q(done_at__isnull=True),
                name="assignment_open_by_person_idx",
            ),
            # The calendar: open assignments due in a month.
            models.Index(
                fields=["due_on"],
                condition=models.Q(done_at__isnull=True),
                name="assignment_open_due_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} of {self.entry}: {self.assignee}, due {self.due_on}"


class CalendarFeed(models.Model):
    """The key in a person's calendar feed link; a new key revokes every older link.

    The link is signed with the site's SECRET_KEY and names the person and this
    key (editorial.assignments.feed_token), so it works without signing in and
    stops working when the person resets it from "My work".
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    key = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Calendar feed of {self.user}"


# --- Who is editing (editorial.presence, editorial.refused) -------------------------------


class EditingPresence(models.Model):
    """Someone has an entry's page open: who, since when, and when their page last reported.

    A row per person and entry, written by the page's heartbeat (editorial.presence) and
    removed when the page is left. A row not heard from for PRESENCE_GONE_AFTER_SECONDS
    counts as gone and is pruned. Desk bookkeeping: no version, page or feed reads it.
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    since = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "user"], name="presence_one_per_person")
        ]
        indexes = [
            # Who else is on this entry now: an entry's rows seen lately.
            models.Index(fields=["entry", "last_seen"], name="presence_entry_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.entry} since {format_instant(self.since)}"


class RefusedEdit(models.Model):
    """What someone submitted when their save was refused because another person had saved
    in between (editorial.admin.forms.ConflictCheckingForm).

    Kept, credited to them, until they merge it into the draft or discard it
    (editorial.refused). Only its author and admins read it; nothing here is in a version,
    so no refused edit reaches readers. When its entry is deleted the row stays, naming the
    entry's term, so the text can still be read and copied.
    """

    entry = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="refused_edits"
    )
    # The entry's term when the save was refused: what the list shows if the entry is deleted.
    term = models.CharField(max_length=200)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="refused_edits"
    )
    refused_at = models.DateTimeField(default=timezone.now)
    opened_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The version the author's form was opened on."
    )
    conflicting_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The entry's latest version when the save was refused."
    )
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who had saved in between.",
    )
    data = models.JSONField(
        help_text="Every field the form submitted, the entry's own and its rows' "
        "(name → list of values), without the form's tokens."
    )

    class Meta:
        ordering = ["-refused_at", "-pk"]
        indexes = [
            # "My refused edits": an author's, newest first.
            models.Index(fields=["author", "-refused_at"], name="refusededit_author_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.author}'s refused edit of “{self.term}” ({format_instant(self.refused_at)})"


class ShowMembership(models.Model):
    """One person's role on one show's team (docs/shows-and-teams.md).

    An account with no membership keeps the network-wide role its group gives it. An
    account with memberships works only on those shows' entries, episodes, sponsorships,
    appearances and feeds, with the role each membership names (editorial.permissions).
    Only the three desk roles are offered: an admin is one for the whole network.
    """

    # The values of editorial.permissions.Role (a sibling module this one cannot import).
    class Role(models.TextChoices):
        WRITER = "writer", "Writer"
        FACT_CHECKER = "fact-checker", "Fact-checker"
        EDITOR = "editor", "Editor"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="show_memberships"
    )
    show = models.ForeignKey(Show, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(
        max_length=20,
        choices=Role.choices,
        default=Role.WRITER,
        help_text="What this person may do on this show: writers draft and submit, "
        "fact-checkers confirm sources, editors review and publish. Once a person is on "
        "any show's team, they see and change only their shows' work.",
    )

    class Meta:
        ordering = ["show__name", "user__username"]
        verbose_name = "show team membership"
        constraints = [
            models.UniqueConstraint(fields=["user", "show"], name="one_role_per_show_per_person")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.show}: {self.get_role_display()}"
