"""The editorial desk in the Django admin, registered here and nowhere else.

Modules: `entries` (the entry page and its inlines), `entry_workflow` (submit,
publish, history, compare, rollback, share), `forms`, `sources` (the source
library and link checks), `reference` (shows, episodes, people, organisations),
`history` (versions and the audit log), `notifications` (the email log and
people's delivery choices), `scheduling`, `gates` (the checks panel
and one-click fixes), `dashboard`, `assignments` ("My work", assigning, planning and
the calendar), `urls` (the desk's own pages), `base` (what
every model admin here stands on) and `accounts` (users, groups and sign-in
records, guarded the same way, and the show teams: who works on which show).
"""

from django.contrib import admin
from taggit.models import Tag

from editorial.admin import accounts
from editorial.admin.accounts import ShowMembershipAdmin
from editorial.admin.assignments import AssignmentAdmin
from editorial.admin.entries import EntryAdmin
from editorial.admin.history import EntryVersionAdmin, WorkflowEventAdmin
from editorial.admin.notifications import NotificationAdmin, NotificationPreferenceAdmin
from editorial.admin.quote_verdicts import QuoteCheckRunAdmin
from editorial.admin.reference import (
    EpisodeAdmin,
    OrganisationAdmin,
    PersonAdmin,
    ShowAdmin,
    TagAdmin,
)
from editorial.admin.scheduling import InterestDisclosureWaiverAdmin, ScheduledActionAdmin
from editorial.admin.sources import LinkCheckAdmin, SourceAdmin
from editorial.models import (
    Assignment,
    InterestDisclosureWaiver,
    Notification,
    NotificationPreference,
    QuoteCheckRun,
    ScheduledAction,
    ShowMembership,
    WorkflowEvent,
)
from glossary.models import (
    Entry,
    EntryVersion,
    Episode,
    LinkCheck,
    Organisation,
    Person,
    Show,
    Source,
)

admin.site.site_header = "Glossary Desk"
admin.site.site_title = "Glossary Desk"
admin.site.index_title = "Editorial desk"

admin.site.register(Entry, EntryAdmin)
admin.site.register(EntryVersion, EntryVersionAdmin)
admin.site.register(WorkflowEvent, WorkflowEventAdmin)
admin.site.register(Show, ShowAdmin)
admin.site.register(Episode, EpisodeAdmin)
admin.site.register(Person, PersonAdmin)
admin.site.register(Organisation, OrganisationAdmin)
admin.site.register(Source, SourceAdmin)
admin.site.register(LinkCheck, LinkCheckAdmin)
admin.site.register(ScheduledAction, ScheduledActionAdmin)
admin.site.register(InterestDisclosureWaiver, InterestDisclosureWaiverAdmin)
admin.site.register(QuoteCheckRun, QuoteCheckRunAdmin)
admin.site.register(Notification, NotificationAdmin)
admin.site.register(NotificationPreference, NotificationPreferenceAdmin)
admin.site.register(Assignment, AssignmentAdmin)
admin.site.register(ShowMembership, ShowMembershipAdmin)
# taggit's own admin lets any staff member merge tags across entries unrecorded.
if admin.site.is_registered(Tag):
    admin.site.unregister(Tag)
admin.site.register(Tag, TagAdmin)
accounts.register()
