"""glossary.inbound: what text from outside the desk may carry into a reader's page."""

import pytest

from glossary.inbound import strip_invisible

INVISIBLE = [
    *(chr(c) for c in range(0x200B, 0x2010)),
    *(chr(c) for c in range(0x202A, 0x202F)),
    *(chr(c) for c in range(0x2066, 0x206A)),
    "\ufeff",
]


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_it_strips_every_bidi_control_and_zero_width_character(char):
    assert strip_invisible(f"pay{char}ments") == "payments"


def test_a_right_to_left_override_cannot_reorder_what_a_reader_sees():
    # "\u202eSTNEMYAP LLA DNES" displays as "SEND ALL PAYMENTS" in a browser.
    assert strip_invisible("Thanks \u202eSTNEMYAP LLA DNES\u202c!") == "Thanks STNEMYAP LLA DNES!"


def test_it_keeps_letters_of_right_to_left_scripts_and_ordinary_whitespace():
    text = "שלום עולם\tمرحبا\nnaïve café – 25:38"
    assert strip_invisible(text) == text
