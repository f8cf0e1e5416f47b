"""Automatic link health checks for cited sources.

The modules split the work: `guard` refuses unsafe addresses, `fetch` is the
one door for outbound HTTP, `classify` maps what happened to an outcome,
`fingerprint` reduces a page to its main text, `state` turns a source's
history into its health, and `service` ties them to the database.
"""
