"""Demo data files: the demo show's RSS feed and the transcripts of episodes 44 and 28.

Every file is marked as demo text inside itself (an XML comment, a WebVTT NOTE, a JSON
"demo" field). The transcripts hold the seed's two quotes as they might have been spoken,
with the filler words the published quotes removed, and the sponsor mentions the seed
cites.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

FEED = HERE / "demo-feed.xml"
# Episode number → transcript file, named as the feed's podcast:transcript URLs name them.
TRANSCRIPTS = {44: HERE / "episode-44.vtt", 28: HERE / "episode-28.json"}
