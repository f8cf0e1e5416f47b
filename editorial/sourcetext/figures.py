"""Figures in a source's text: numbers with their units, as an editor would quote them.

What counts as a figure:

- a number written in digits ("72", "3.6", "10,000", "2026", "1.0.1"), not part of
  a name ("H100", "NVL72", "v2" are names, not figures);
- with the unit that follows it, with or without a space ("3 TB/s", "3TB/s"), when
  the unit is one we know: data rates, sizes, frequencies, power, lengths, times,
  FLOPS, percentages, multipliers ("2x"), and the counted things of hardware pages
  ("72 GPUs", "18 links", "4 racks"); a number followed by anything else is a bare
  number ("in 2026"), and a number glued to an unknown word ("4K", "5G") is a
  name, not a figure;
- with a scale word ("4.5 billion") and a currency sign ("$4.5 billion", "$4.5B");
- ordinal generations, in digits or words: "6th generation", "sixth-generation"
  and "sixth generation" are all "6th generation"; other ordinals in digits
  ("5th") are figures on their own.

How figures are compared: by number and unit. The number loses its thousands
separators ("10,000" is "10000") but nothing else ("3.0" is not "3"); units are
spelled one way ("Gbps", "Gbit/s" and "Gb/s" are "Gb/s"; "percent" is "%";
"exaflops" is "exaFLOPS"), keeping the case that matters (Gb/s is bits, GB/s
bytes). No conversion: "3 TB/s" and "3,000 GB/s" are different figures, so an
editor is told when a page restates a figure in other units.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

_PREFIXES = ("kilo", "mega", "giga", "tera", "peta", "exa")  # "TFLOPS" is "teraFLOPS"
# Canonical spelling of each unit; looked up exactly first, then casefolded, except
# units where case carries meaning (bits vs bytes), which must match exactly.
_EXACT_UNITS = {
    **{f"{p}b/s": f"{p}b/s" for p in "KMGTP"},
    **{f"{p}B/s": f"{p}B/s" for p in "KMGTP"},
    **{f"{p}bps": f"{p}b/s" for p in "KMGTP"},
    **{f"{p}Bps": f"{p}B/s" for p in "KMGTP"},
    **{f"{p}bit/s": f"{p}b/s" for p in "KMGTP"},
    **{f"{p}B": f"{p}B" for p in "KMGTPE"},
    **{f"{p}b": f"{p}b" for p in "KMGT"},
    "GT/s": "GT/s",
    "MT/s": "MT/s",
    "G": "G",  # "400G" Ethernet; also "5G", which is as much a figure of the page
    "W": "W",
    "kW": "kW",
    "MW": "MW",
    "GW": "GW",
    "V": "V",
    "A": "A",
    "x": "×",
    "X": "×",
    "×": "×",
    "%": "%",
}
_FOLDED_UNITS = {
    **{f"{p}byte/s".casefold(): f"{p}B/s" for p in "KMGTP"},
    **{f"{p}bytes/s".casefold(): f"{p}B/s" for p in "KMGTP"},
    **{f"{name[0]}flops": f"{name}FLOPS" for name in _PREFIXES},
    **{f"{name}flops": f"{name}FLOPS" for name in _PREFIXES},
    **{f"{p}tops".casefold(): f"{p}TOPS" for p in ("", "T", "P")},
    **{f"{p}hz".casefold(): f"{p}Hz" for p in ("", "k", "M", "G")},
    **{f"{p}m": f"{p}m" for p in ("n", "µ", "μ", "m", "c", "k")},
    **{u: u for u in ("ms", "ns", "s", "sec", "seconds", "minutes", "hours", "days", "years")},
    "µs": "µs",
    "μs": "µs",
    "us": "µs",
    "flops": "FLOPS",
    "percent": "%",
    "per cent": "%",
    "mm²": "mm²",
    "watts": "W",
    "degrees": "°",
    "°c": "°C",
    "°f": "°F",
}
# Counted things on the vendor and standards pages we cite, singular and plural.
_COUNTED = """gpu cpu dpu nic chip die core node server rack switch port lane link
    accelerator layer generation transistor member engineer customer country building
    datacenter site tray blade petabyte exabyte token parameter user""".split()
for _noun in _COUNTED:
    for _form in (_noun, _noun + ("es" if _noun.endswith(("ch", "sh", "s", "x")) else "s")):
        _FOLDED_UNITS.setdefault(_form, _form.upper() if len(_noun) == 3 else _form)
_FOLDED_UNITS.update({"gpus": "GPUs", "cpus": "CPUs", "dpus": "DPUs", "nics": "NICs"})
_FOLDED_UNITS.update({"gpu": "GPU", "cpu": "CPU", "dpu": "DPU", "nic": "NIC"})
_SCALES = {
    "thousand": "thousand",
    "million": "million",
    "billion": "billion",
    "trillion": "trillion",
    "k": "thousand",
    "m": "million",
    "mn": "million",
    "b": "billion",
    "bn": "billion",
    "t": "trillion",
    "tn": "trillion",
}
_GLUED_UNITS = frozenset({"%", "×", "G"})  # spelled without a space: "50%", "2×", "400G"
_WORD_SCALES = frozenset({"thousand", "million", "billion", "trillion"})
_CURRENCIES = {"$": "$", "us$": "$", "€": "€", "£": "£", "¥": "¥"}
_ORDINAL_WORDS = {
    word: index
    for index, word in enumerate(
        """first second third fourth fifth sixth seventh eighth ninth tenth eleventh
        twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth
        nineteenth twentieth""".split(),
        start=1,
    )
}

# Each pattern starts with a digit, its lookbehind tucked after it, so the engine
# jumps from digit to digit: a leading lookbehind or optional currency group made
# it try every position of the text (2-4x slower). The currency is looked for
# behind a match instead.
_NUMBER = re.compile(
    r"(?P<number>\d(?<![\w.,/:-]\d)(?:\d{0,2}(?:,\d{3})+(?:\.\d+)?|\d*(?:\.\d+)*))"
    r"(?P<glued>[A-Za-zµμ°%×²/]+(?:/[A-Za-z]+)?)?"
    r"(?!\d|[.,:]\d)"
)
_CURRENCY_BEFORE = re.compile(r"(?:US\$|[$€£¥]) ?$")
_FOLLOWING = re.compile(
    r"[ \u00a0\u202f]?(?P<unit>%|×|per cent|°[CF]|[A-Za-zµμ]+(?:/[A-Za-z]+|²)?)"
    r"(?:[ \u00a0\u202f](?P<unit2>[A-Za-zµμ]+(?:/[A-Za-z]+)?))?"
)
_ORDINAL_DIGITS = re.compile(r"(?P<number>\d(?<![\w.]\d)\d*)(?:st|nd|rd|th)\b", re.I)
# "generation" is found first and the word before it looked up: an alternation of
# twenty ordinals tried at every position of the text cost ten times as much.
_GENERATION_WORD = re.compile(r"[- ]generation\b", re.I)
_WORD_BEFORE = re.compile(r"\b[A-Za-z]+$")
_RANGE = re.compile(r"\s*(?:–|—|-|to)\s*")
_PLAIN_UNITS = frozenset({*_EXACT_UNITS.values(), *_FOLDED_UNITS.values()})
_GENERATION_AFTER = re.compile(r"[- ]gen(?:eration)?\b", re.I)


@dataclass(frozen=True)
class Figure:
    """A figure as found: ``text`` is its canonical spelling ("3 TB/s", "$4.5 billion").

    ``start``/``end`` are its span in the text it was found in; two figures are the
    same figure when their ``key`` (number without separators, canonical unit) is.
    """

    text: str
    number: str
    unit: str
    start: int
    end: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.number, self.unit)


def figures(text: str) -> list[Figure]:
    """Every figure in ``text``, in order of appearance."""
    return list(_figures(text))


# The same texts go through figures_gone, check_note and excerpt, once per citing
# entry; figures are immutable, so the last texts' figures are kept.
@functools.lru_cache(maxsize=128)
def _figures(text: str) -> tuple[Figure, ...]:
    found: list[Figure] = []
    taken: list[tuple[int, int]] = []
    for match in _GENERATION_WORD.finditer(text):
        word = _WORD_BEFORE.search(text, max(0, match.start() - 12), match.start())
        if word is not None and word.group().lower() in _ORDINAL_WORDS:
            number = str(_ORDINAL_WORDS[word.group().lower()])
            found.append(_generation(number, word.start(), match.end()))
            taken.append((word.start(), match.end()))
    for match in _ORDINAL_DIGITS.finditer(text):
        generation = _GENERATION_AFTER.match(text, match.end())
        end = generation.end() if generation else match.end()
        number = match.group("number")
        if generation:
            found.append(_generation(number, match.start(), end))
        else:
            found.append(Figure(_ordinal(number), number, "ordinal", match.start(), end))
        taken.append((match.start(), end))
    for match in _NUMBER.finditer(text):
        figure = _figure(text, match)
        if figure is not None and not any(a <= figure.start < b for a, b in taken):
            found.append(figure)
    found.sort(key=lambda figure: figure.start)
    return tuple(_with_range_units(text, found))


def _with_range_units(text: str, found: list[Figure]) -> list[Figure]:
    """Give the first number of a range its unit: "1.8–3.6 TB/s" is 1.8 TB/s to 3.6 TB/s."""
    for index in range(len(found) - 1, 0, -1):
        low, high = found[index - 1], found[index]
        if low.unit or high.unit not in _PLAIN_UNITS:
            continue
        if _RANGE.fullmatch(text, low.end, high.start):
            written = text[low.start : low.end]
            found[index - 1] = Figure(
                _with_unit(written, high.unit), low.number, high.unit, low.start, low.end
            )
    return found


def _with_unit(written: str, unit: str) -> str:
    return written + unit if unit in _GLUED_UNITS else f"{written} {unit}"


def _figure(text: str, match: re.Match[str]) -> Figure | None:
    number = match.group("number").replace(",", "")
    start = match.start()
    behind = _CURRENCY_BEFORE.search(text, max(0, start - 4), start)
    currency = _CURRENCIES[behind.group().strip().lower()] if behind is not None else ""
    if behind is not None:
        start = behind.start()
    glued = match.group("glued")
    scale = ""
    unit = ""
    end = match.end()
    if glued:
        if currency and glued.lower() in _SCALES:
            scale = _SCALES[glued.lower()]
        else:
            unit = _unit(glued)
            if not unit:
                return None  # "4K", "5G", "3D": a name, not a figure
    else:
        following = _FOLLOWING.match(text, end)
        if following is not None:
            word = following.group("unit")
            two = f"{word} {following.group('unit2')}" if following.group("unit2") else ""
            if word.lower() in _WORD_SCALES:
                scale = word.lower()
                end = following.end("unit")
                if following.group("unit2") and _unit(following.group("unit2")):
                    unit = _unit(following.group("unit2"))
                    end = following.end("unit2")
            elif two and _unit(two):
                unit, end = _unit(two), following.end("unit2")
            elif _unit(word):
                unit, end = _unit(word), following.end("unit")
    spelled = match.group("number") + (f" {scale}" if scale else "")
    if currency:
        spelled = currency + spelled
    if unit:
        spelled = _with_unit(spelled, unit)
    full_unit = " ".join(part for part in (currency, scale, unit) if part)
    return Figure(spelled, number, full_unit, start, end)


def _unit(word: str) -> str:
    return _EXACT_UNITS.get(word) or _FOLDED_UNITS.get(word.casefold(), "")


def _generation(number: str, start: int, end: int) -> Figure:
    return Figure(f"{_ordinal(number)} generation", number, "generation", start, end)


def _ordinal(number: str) -> str:
    value = int(number)
    suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
    return f"{number}{suffix}"


def figures_gone(confirmed: str, current: str) -> list[str]:
    """Figures of the confirmed text that the current text no longer has anywhere.

    Counted: if the confirmed text says "72 GPUs" twice and the current once, one
    is gone. A figure that moved to another sentence is not gone. Each is given by
    its canonical spelling, in the confirmed text's order.
    """
    remaining = Counter(figure.key for figure in figures(current))
    gone: list[str] = []
    for figure in figures(confirmed):
        if remaining[figure.key] > 0:
            remaining[figure.key] -= 1
        else:
            gone.append(figure.text)
    return gone
