"""Episodes from a podcast's feed, transcripts, and quotes checked against what was said."""
