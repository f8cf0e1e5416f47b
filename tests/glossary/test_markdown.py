from html.parser import HTMLParser

from glossary.markdown import markdown_to_text, render_markdown


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    found: list[tuple[str, dict[str, str | None]]] = []

    class Collector(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, dict(attrs)))

    Collector().feed(html)
    return found


def test_it_renders_ordinary_markdown():
    html = render_markdown("Some **bold** and a [link](https://example.org/x).")
    assert "<strong>bold</strong>" in html
    assert 'href="https://example.org/x"' in html


def test_it_removes_script_tags():
    html = render_markdown("Hi <script>alert(1)</script>")
    assert "script" not in [tag for tag, _ in elements(html)]


def test_it_removes_event_handlers_from_raw_html():
    html = render_markdown('<img src="x" onerror="alert(1)"> <a href="/" onclick="x()">a</a>')
    tags = elements(html)
    assert "img" not in [tag for tag, _ in tags]
    assert not [name for _, attrs in tags for name in attrs if name.startswith("on")]


def test_it_drops_javascript_links():
    html = render_markdown("[click](javascript:alert(1)) and [ok](https://ok.example/)")
    assert 'href="javascript' not in html
    assert 'href="https://ok.example/"' in html


def test_it_drops_javascript_links_written_as_autolinks_and_references():
    html = render_markdown("<javascript:alert(1)>\n\n[x][r]\n\n[r]: javascript:alert(2)")
    assert 'href="javascript' not in html


def test_plain_text_unescapes_entities():
    assert markdown_to_text("Fish & chips **now**") == "Fish & chips now"
