"""What a cited source says, kept and compared: the pure core behind "what changed".

`text` turns a fetched page into the readable main text that is stored (same
main-text rules as the link checker's fingerprint); `store` hashes, compresses
and decides which stored texts to keep; `diff` splits text into sentences and
compares two versions; `figures` finds numbers with their units; `claims` checks
a citation's note against the current text; `excerpt` picks the few sentences a
reader is shown. No Django models, no database: callers pass strings in.
"""
