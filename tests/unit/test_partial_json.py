"""``llm.partial_json``: the beginning of a JSON answer, as far as it goes, with what is still open marked;
and ``synthesis.preview``: the sentences it holds, and when a ``draft_text`` event is sent."""

from __future__ import annotations

import json

from rabbithole.llm.partial_json import OpenDict, OpenList, OpenStr, parse_partial
from rabbithole.research.models import Evidence
from rabbithole.research.synthesis.preview import THROTTLE_S, DraftTextEvent, SectionPreview, claims_of

ANSWER = json.dumps(
    {
        "claims": [
            {"text": "Workers may receive 20 mSv.", "evidence": ["t1-b1-e1", "t1-b1-e12"]},
            {"text": 'It is checked "yearly" ä.', "evidence": ["t1-b1-e2"]},
        ]
    }
)


def test_every_prefix_parses_to_what_it_holds_and_the_whole_to_the_answer() -> None:
    for end in range(len(ANSWER) + 1):
        parse_partial(ANSWER[:end])  # never raises
    assert parse_partial(ANSWER) == json.loads(ANSWER)
    assert not isinstance(parse_partial(ANSWER), OpenDict)


def test_what_is_still_open_is_marked() -> None:
    cut = ANSWER[: ANSWER.index("e12") + 2]  # inside the second id: "t1-b1-e1
    value = parse_partial(cut)
    assert isinstance(value, OpenDict) and isinstance(value["claims"], OpenList)
    claim = value["claims"][0]
    assert isinstance(claim, OpenDict) and claim["evidence"] == ["t1-b1-e1", "t1-b1-e1"]
    assert isinstance(claim["evidence"][1], OpenStr) and not isinstance(claim["evidence"][0], OpenStr)
    # a key without its value, a half escape, a cut number are left out
    assert parse_partial('{"claims": [{"text": "a"}], "n') == {"claims": [{"text": "a"}]}
    assert parse_partial('{"text": "ab\\') == {"text": "ab"}
    assert parse_partial('{"a": 12') == {}
    assert parse_partial('{"a": 12,') == {"a": 12}
    assert parse_partial("<think>x</think> prose") is None
    assert parse_partial('```json\n{"a": [1, tr') == {"a": [1]}


def test_claims_keep_complete_ids_only_and_say_which_sentence_is_complete() -> None:
    cut = ANSWER[: ANSWER.index("e12") + 2]
    assert [(c.text, c.evidence_ids, c.complete) for c in claims_of(parse_partial(cut))] == [
        ("Workers may receive 20 mSv.", ["t1-b1-e1"], False)
    ]
    whole = claims_of(parse_partial(ANSWER))
    assert [c.complete for c in whole] == [True, True]
    assert whole[1].text == 'It is checked "yearly" ä.'


def evidence(eid: str) -> Evidence:
    return Evidence(
        id=eid,
        task_id="t1",
        chunk_id="c",
        collection="laws",
        document="a.pdf",
        page=3,
        quote="Q",
        start=10,
        end=11,
        fact="F",
    )


def test_the_preview_sends_at_each_sentence_and_otherwise_at_most_every_throttle_interval() -> None:
    sent: list[DraftTextEvent] = []
    now = [0.0]
    preview = SectionPreview(
        index=0,
        heading="H",
        task_id="t1",
        attempt=1,
        evidence=[evidence("t1-b1-e1"), evidence("t1-b1-e2")],
        emit=sent.append,
        clock=lambda: now[0],
    )
    pieces = [ANSWER[:end] for end in range(1, len(ANSWER) + 1)]
    for piece in pieces:  # every character at once: only sentence ends get through the throttle
        preview(piece)
    completed = [[c.complete for c in e.claims] for e in sent]
    assert [True] in completed and [True, True] in completed
    assert len(sent) <= 3
    # checked ids only, each sent once with where it points; the id the run did not retrieve never
    cited = [i for e in sent for i in e.citations]
    assert sorted(cited) == ["t1-b1-e1", "t1-b1-e2"]
    assert sent[-1].claims[0].evidence_ids == ["t1-b1-e1", "t1-b1-e12"]
    where = next(e.citations["t1-b1-e1"] for e in sent if "t1-b1-e1" in e.citations)
    assert (where.document, where.page, where.start, where.end) == ("a.pdf", 3, 10, 11)
    # with time passing, text within a sentence is sent too
    sent.clear()
    again = SectionPreview(
        index=0, heading="H", task_id="t1", attempt=1, evidence=[], emit=sent.append, clock=lambda: now[0]
    )
    for piece in pieces[:40]:
        now[0] += THROTTLE_S
        again(piece)
    assert sent and not sent[-1].claims[-1].complete and sent[-1].claims[-1].text
