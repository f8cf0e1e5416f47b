"""A vendor-like page in two versions, as the link checker would fetch it."""

from __future__ import annotations

# The seed entry's first source note, as an editor wrote it.
SEED_NOTE = (
    "Vendor page describing NVLink as the GPU-to-GPU interconnect for rack-scale systems; "
    "the sixth generation is listed at 3 TB/s of bandwidth per GPU on the Vera Rubin platform"
)

ARTICLE_V1 = [
    "NVLink is a high-bandwidth, energy-efficient interconnect that lets GPUs talk to "
    "each other directly.",
    "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU on the Vera "
    "Rubin platform.",
    "An NVLink Switch system connects 72 GPUs in one rack as a single, giant accelerator.",
    "Partners include Foxconn Inc. and Quanta Computer, e.g. for liquid-cooled racks.",
]
ARTICLE_V2 = [
    ARTICLE_V1[0],
    "The sixth generation of NVLink delivers 3.6 TB/s of bandwidth per GPU on the Vera "
    "Rubin platform.",
    # Reworded, same figure.
    "In one rack, an NVLink Switch system joins 72 GPUs into a single, giant accelerator.",
    ARTICLE_V1[3],
]


def vendor_page(article: list[str], *, ad: str = "Buy DGX today", clock: str = "10:15") -> str:
    paragraphs = "\n".join(f"    <p>{sentence}</p>" for sentence in article)
    return f"""<!doctype html>
<html lang="en"><head><title>NVLink and NVLink Switch | NVIDIA</title>
<script>window.dataLayer = [];</script><style>.hero{{color:#76b900}}</style></head>
<body>
<header role="banner"><a href="/">NVIDIA</a> <a href="/data-center/">Data Center</a></header>
<nav aria-label="breadcrumb"><ol><li>Home</li><li>Data Center</li><li>NVLink</li></ol></nav>
<div class="cookie-banner">We use cookies. <button>Accept</button></div>
<main id="content">
  <article>
    <h1>NVLink and NVLink <em>Switch</em></h1>
    <p class="updated">Updated {clock}</p>
{paragraphs}
    <div class="ad-slot" data-ad-slot="42"><p>{ad}</p></div>
    <h2>Specifications</h2>
    <table>
      <tr><th>Generation</th><th>Bandwidth per GPU</th></tr>
      <tr><td>Fifth</td><td>1.8 TB/s</td></tr>
    </table>
    <ul><li>Scale-up networking</li><li>Rack-scale NV<b>Link</b> domains</li></ul>
  </article>
  <aside class="related">Related: InfiniBand, Spectrum-X</aside>
</main>
<footer>Copyright © 2026 NVIDIA Corporation</footer>
<ins class="adsbygoogle" data-ad-client="ca-pub-1"></ins>
</body></html>
"""


PAGE_V1 = vendor_page(ARTICLE_V1)
PAGE_V2 = vendor_page(ARTICLE_V2)
