"""A view too big for the model's context window is shortened, not sent as is: the middle of the longest
messages is cut, their start and end stay, and the conversation's structure is untouched."""

from __future__ import annotations

import re

from runtime.agent.fit_window import MIN_KEPT_CHARS, fit_view
from runtime.chat.history import estimate_tokens
from runtime.chat.messages import (
    AssistantMessage,
    ChatMessage,
    ImagePart,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

LIMIT = 10_000  # tokens: about 40,000 characters
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
CUT = re.compile(r"\n\n\[… ([\d,]+) characters cut here to fit the model's context window; the full text stays in "
                 r"the session …\]\n\n")


def _long(tag: str, chars: int) -> str:
    """Text that starts with START-tag and ends with END-tag, ``chars`` long."""
    start, end = f"START-{tag} ", f" END-{tag}"
    return start + "w" * (chars - len(start) - len(end)) + end


def _cut_of(text: str) -> int:
    match = CUT.search(text)
    assert match, "no cut marker"
    return int(match.group(1).replace(",", ""))


def test_a_view_within_the_limit_is_sent_as_it_is() -> None:
    view: list[ChatMessage] = [SystemMessage("S"), UserMessage("hi"), AssistantMessage("hello")]
    fitted = fit_view(view, TOOLS, LIMIT)
    assert fitted.messages == view and fitted.cut_chars == 0 and fitted.fits(LIMIT)


def test_a_huge_reply_keeps_its_start_and_end_and_says_how_much_was_cut() -> None:
    huge = _long("reply", 2_000_000)
    view: list[ChatMessage] = [SystemMessage("S"), UserMessage("write a lot"), AssistantMessage(huge),
                               UserMessage("and now?")]
    fitted = fit_view(view, TOOLS, LIMIT)
    assert fitted.fits(LIMIT) and estimate_tokens(fitted.messages, TOOLS) <= LIMIT
    reply = fitted.messages[2].content
    assert reply.startswith("START-reply ") and reply.endswith(" END-reply")
    kept = len(CUT.sub("", reply))
    assert _cut_of(reply) == len(huge) - kept == fitted.cut_chars
    assert fitted.messages[:2] == view[:2] and fitted.messages[3] == view[3]
    assert estimate_tokens(fitted.messages, TOOLS) > LIMIT * 0.9  # cut no more than needed


def test_the_longest_messages_are_cut_to_one_length_and_short_ones_stay_whole() -> None:
    view: list[ChatMessage] = [
        SystemMessage("S"),
        UserMessage(_long("paste", 8_000)),
        AssistantMessage(_long("a", 60_000)),
        UserMessage("short question"),
        AssistantMessage(_long("b", 90_000)),
        UserMessage("next"),
    ]
    fitted = fit_view(view, TOOLS, LIMIT)
    assert fitted.fits(LIMIT) and fitted.cut_messages == 2
    a, b = fitted.messages[2].content, fitted.messages[4].content
    assert abs(len(CUT.sub("", a)) - len(CUT.sub("", b))) <= 2  # the same length kept of each
    assert fitted.messages[1] == view[1] and fitted.messages[3] == view[3]  # shorter than that: whole


def test_the_newest_user_message_is_cut_only_when_nothing_else_is_enough() -> None:
    spared = fit_view([SystemMessage("S"), AssistantMessage(_long("old", 80_000)), UserMessage(_long("new", 30_000))],
                      TOOLS, LIMIT)
    assert spared.fits(LIMIT) and "characters cut" not in spared.messages[2].content

    pasted = _long("book", 500_000)
    alone = fit_view([SystemMessage("S"), UserMessage(pasted)], TOOLS, LIMIT)
    assert alone.fits(LIMIT) and _cut_of(alone.messages[1].content) > 400_000
    assert alone.messages[1].content.startswith("START-book") and alone.messages[1].content.endswith("END-book")


def test_the_structure_stays_valid_for_every_provider() -> None:
    calls = (ToolCall("c1", "read_file", '{"path": "big.txt"}'),)
    details = ({"type": "reasoning.encrypted", "data": "opaque", "id": "r1"},)
    image = ImagePart("image/png", "iVBORw0KGgo=", "a.png")
    view: list[ChatMessage] = [
        SystemMessage("S"),
        UserMessage("read it", (image,)),
        AssistantMessage(_long("pre", 50_000), calls, "thinking", details),
        ToolResultMessage("c1", "read_file", _long("file", 3_000_000)),
    ]
    fitted = fit_view(view, TOOLS, LIMIT)
    assert fitted.fits(LIMIT)
    assert [m.role for m in fitted.messages] == [m.role for m in view]
    user, assistant, result = fitted.messages[1:]
    assert isinstance(user, UserMessage) and user.images == (image,)
    assert isinstance(assistant, AssistantMessage)
    assert assistant.tool_calls == calls and assistant.reasoning_details == details
    assert isinstance(result, ToolResultMessage)
    assert (result.call_id, result.name, result.ok) == ("c1", "read_file", True)
    assert _cut_of(result.content) > 2_900_000


def test_text_that_grows_on_the_wire_fits_and_is_cut_no_more_than_needed() -> None:
    """Newlines and quotes take two characters each in JSON: the cut is measured on the wire."""
    escaped = '"\n' * 400_000
    fitted = fit_view([SystemMessage("S"), AssistantMessage(escaped), UserMessage("?")], TOOLS, LIMIT)
    assert fitted.fits(LIMIT) and estimate_tokens(fitted.messages, TOOLS) <= LIMIT
    assert estimate_tokens(fitted.messages, TOOLS) > LIMIT * 0.99


def test_what_cannot_be_cut_is_reported_as_not_fitting() -> None:
    view: list[ChatMessage] = [SystemMessage("S" * 60_000), UserMessage(_long("q", 20_000))]
    fitted = fit_view(view, TOOLS, LIMIT)
    assert not fitted.fits(LIMIT)
    assert len(CUT.sub("", fitted.messages[1].content)) >= MIN_KEPT_CHARS  # cut as far as it goes
    assert fitted.messages[0] == view[0]  # the system message is never cut
