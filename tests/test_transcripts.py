import json
from datetime import datetime, timezone

from tachikoma.transcripts import parse_timestamp, parse_transcript


def jsonl(*objects) -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objects) + "\n"


def test_claude_code_session():
    text = jsonl(
        {"type": "summary", "summary": "Planning revision C", "leafUuid": "x"},
        {"type": "user", "timestamp": "2025-06-01T09:31:02.123Z",
         "message": {"role": "user", "content": "When do the samples arrive?"}},
        {"type": "assistant", "timestamp": "2025-06-01T09:31:09Z",
         "message": {"role": "assistant", "content": [
             {"type": "thinking", "thinking": "SECRET-THOUGHT check mail"},
             {"type": "text", "text": "I'll look."},
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "grep SECRET-INPUT"}},
         ]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "TOOL-NOISE order 4471"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "  They ship on 27 March.  "}]}},
    )
    turns, warnings = parse_transcript(text, "s.jsonl")
    assert warnings == []
    assert [(t.speaker, t.line) for t in turns] == [("summary", 1), ("user", 2), ("assistant", 3), ("assistant", 5)]
    assert turns[0].text == "Planning revision C"
    assert turns[2].text == "I'll look.\n[tool: Bash]"
    assert turns[3].text == "They ship on 27 March."
    everything = "\n".join(t.text for t in turns)
    for hidden in ("SECRET-THOUGHT", "SECRET-INPUT", "TOOL-NOISE"):
        assert hidden not in everything
    assert turns[1].timestamp == datetime(2025, 6, 1, 9, 31, 2, 123000, tzinfo=timezone.utc)
    assert turns[0].timestamp is None


def test_claude_code_bookkeeping_lines_are_skipped_quietly():
    text = jsonl(
        {"type": "system", "content": "Compacted", "level": "info"},
        {"type": "file-history-snapshot", "snapshot": {"files": []}},
        {"type": "progress", "data": {"x": 1}},
        {"type": "user", "message": {"role": "user", "content": "hello there"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "only thinking"}]}},
    )
    turns, warnings = parse_transcript(text, "s.jsonl")
    assert warnings == []
    assert [(t.speaker, t.text, t.line) for t in turns] == [("user", "hello there", 4)]


def test_chat_api_lines():
    text = jsonl(
        {"role": "system", "content": "You are Tachi."},
        {"role": "user", "content": [{"type": "text", "text": "Order a backpack"}, {"type": "text", "text": "blue"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "shop", "arguments": "{\"q\": \"SECRET\"}"}}]},
        {"role": "tool", "content": "TOOL-NOISE result"},
        {"role": "assistant", "content": "Ordered."},
    )
    turns, warnings = parse_transcript(text, "c.jsonl")
    assert warnings == []
    assert [(t.speaker, t.text, t.line) for t in turns] == [
        ("system", "You are Tachi.", 1),
        ("user", "Order a backpack\nblue", 2),
        ("assistant", "[tool: shop]", 3),
        ("assistant", "Ordered.", 5),
    ]


def test_speaker_lines_with_optional_times():
    text = jsonl(
        {"speaker": "Caroline", "text": "I went to the LGBTQ support group.", "dia_id": "D1:1",
         "timestamp": "2023-05-08T13:56:00+02:00"},
        {"speaker": "Melanie", "text": "How was it?", "date": "2023-05-08", "time": "14:00"},
        {"speaker": "Caroline", "text": "Powerful.", "date": "1:56 pm on 8 May, 2023"},
    )
    turns, warnings = parse_transcript(text, "d.jsonl")
    assert warnings == []
    assert [(t.speaker, t.text) for t in turns] == [
        ("Caroline", "I went to the LGBTQ support group."), ("Melanie", "How was it?"), ("Caroline", "Powerful.")]
    assert turns[0].timestamp == datetime(2023, 5, 8, 11, 56, tzinfo=timezone.utc)
    assert turns[1].timestamp == datetime(2023, 5, 8, 14, 0, tzinfo=timezone.utc)
    assert turns[2].timestamp is None


def test_mixed_formats_in_one_file_keep_order_and_lines():
    text = jsonl(
        {"type": "summary", "summary": "mixed"},
        "",
        {"role": "user", "content": "plain chat"},
        {"speaker": "Ann", "text": "dialogue"},
        {"type": "assistant", "message": {"role": "assistant", "content": "claude style"}},
    )
    turns, warnings = parse_transcript(text, "m.jsonl")
    assert warnings == []
    assert [(t.speaker, t.text, t.line) for t in turns] == [
        ("summary", "mixed", 1), ("user", "plain chat", 3), ("Ann", "dialogue", 4), ("assistant", "claude style", 5)]


def test_broken_line_is_reported_and_the_rest_still_parsed():
    text = jsonl(
        {"speaker": "A", "text": "first"},
        '{"speaker": "B", "text": "broken',
        {"speaker": "C", "text": "third"},
    )
    turns, warnings = parse_transcript(text, "notes/chat.jsonl")
    assert [t.text for t in turns] == ["first", "third"]
    assert [t.line for t in turns] == [1, 3]
    assert len(warnings) == 1
    assert warnings[0].startswith("notes/chat.jsonl:2: not valid JSON")


def test_json_that_is_not_an_object_is_reported():
    text = jsonl('"just a string"', "[1, 2]", "42", "null", {"speaker": "A", "text": "kept"})
    turns, warnings = parse_transcript(text, "x.jsonl")
    assert [t.text for t in turns] == ["kept"]
    assert [w.split(": ")[0] for w in warnings] == ["x.jsonl:1", "x.jsonl:2", "x.jsonl:3", "x.jsonl:4"]
    assert all("not an object" in w for w in warnings)


def test_objects_without_recognisable_text_are_reported():
    text = jsonl(
        {"foo": 1},
        {"speaker": "A"},
        {"speaker": "A", "text": 5},
        {"role": "user", "content": 12},
        {"role": "user"},
        {"type": "summary"},
        {"type": "user", "message": {"role": "user"}},
        {"speaker": "B", "text": "fine"},
    )
    turns, warnings = parse_transcript(text, "y.jsonl")
    assert [t.text for t in turns] == ["fine"]
    assert [w.split(": ")[0] for w in warnings] == [f"y.jsonl:{n}" for n in range(1, 8)]


def test_blank_and_empty_turns_are_skipped_without_warning():
    text = "\n   \n" + jsonl({"speaker": "A", "text": "   "}, {"role": "user", "content": ""},
                                {"speaker": "B", "text": "real"})
    turns, warnings = parse_transcript(text, "z.jsonl")
    assert warnings == []
    assert [(t.text, t.line) for t in turns] == [("real", 5)]


def test_crlf_lines_and_unicode_line_separators():
    # U+2028 may sit unescaped inside a JSON string; it is not a line break of the file.
    line1 = '{"speaker": "A", "text": "one\u2028two"}'
    text = line1 + "\r\n" + '{"speaker": "B", "text": "three"}\r\n'
    turns, warnings = parse_transcript(text, "u.jsonl")
    assert warnings == []
    assert [(t.speaker, t.line) for t in turns] == [("A", 1), ("B", 2)]
    assert turns[0].text == "one\u2028two"


def test_deeply_nested_json_is_a_warning_not_a_crash():
    text = "[" * 100_000 + "\n" + json.dumps({"speaker": "A", "text": "after"})
    turns, warnings = parse_transcript(text, "deep.jsonl")
    assert [t.text for t in turns] == ["after"]
    assert len(warnings) == 1 and warnings[0].startswith("deep.jsonl:1:")


def test_parse_timestamp():
    utc = timezone.utc
    assert parse_timestamp("2025-06-01T10:00:00Z") == datetime(2025, 6, 1, 10, tzinfo=utc)
    assert parse_timestamp("2025-06-01T10:00:00.123456789Z") == datetime(2025, 6, 1, 10, 0, 0, 123456, tzinfo=utc)
    assert parse_timestamp("2025-06-01T12:00:00+02:00") == datetime(2025, 6, 1, 10, tzinfo=utc)
    assert parse_timestamp("2025-06-01") == datetime(2025, 6, 1, tzinfo=utc)
    assert parse_timestamp(1_748_772_000) == datetime(2025, 6, 1, 10, tzinfo=utc)
    assert parse_timestamp(1_748_772_000_000) == datetime(2025, 6, 1, 10, tzinfo=utc)
    for bad in ("yesterday", "", None, True, [], "2025-13-01"):
        assert parse_timestamp(bad) is None
    assert parse_timestamp("2025-06-01T10:00:00Z").tzinfo is utc
