"""Grammar (regex) reference detector: German/EU legal citations and academic/technical references.

    >>> [(r.section, r.law_normalized) for r in detect_references("nach den §§ 6 oder 9a des Atomgesetzes")]
    [('6', 'Atomgesetz'), ('9a', 'Atomgesetz')]

One pass of a precompiled trigger pattern (plain literals) over the text; at each trigger a handler parses
forward with anchored ``match`` calls, so nothing backtracks over the text (about 4 MB/s on the 17 laws;
benchmarks/bench_grammar.py). No LLM, no list of law names. See :mod:`rabbithole.references.models` for the
reference fields and the span convention.

Citation chains (parser in :mod:`rabbithole.references.chains`), e.g. "§ 12 Absatz 1 Satz 1 Nummer 1 oder 3,
jeweils auch in Verbindung mit Absatz 2, des Strahlenschutzgesetzes":

* levels Artikel > § / Anlage > Teil > Absatz > Unterabsatz > Satz > Halbsatz > Nummer > Buchstabe
  (Tabelle/Spalte/Zeile under Anlage, kept in ``detail``); a list ("1, 2 und 4") or range ("8 bis 10")
  at one level distributes over the deeper levels that follow its last item ("§ 9b Abs. 2 und 5 Nr. 1" =
  9b(2) and 9b(5) Nr. 1); one reference per leaf;
* ranges are expanded ("§§ 8 bis 10" = 8, 9, 10; "§§ 7 bis 7d" = 7, 7a..7d; "§§ 21a bis 23" = 21a, 22,
  23: lettered sections *between* whole numbers are unknown here and not invented; middle items get
  ``from_range=True``); a reversed range keeps its endpoints; "§ 5 bis 2025" is no range;
* "in Verbindung mit"/"i.V.m." splits the chain into mentions. A bare part that restates a level the
  previous part had ("§ 26 Abs. 1 in Verbindung mit Abs. 1a") continues that part's § (and law);
  otherwise bare "Absatz 2" is relative to the citing § (``relative_to="section"``), "Satz 1"/"Nummer 3"
  to the citing Absatz, "Buchstabe a" to the citing Nummer, "Teil B Nummer 1" to the citing Anlage;
* a law named at the end applies backwards to parts joined by "," / "und" / "oder" / "sowie" ("§ 41
  Absatz 5, § 43 Absatz 2 oder § 46 Absatz 3 des Strahlenschutzgesetzes") and to a part continued as
  above; across "in Verbindung mit" only when the later part is an Anlage ("§ 95 Absatz 1 in Verbindung
  mit Anlage XI Teil A zur Strahlenschutzverordnung"); never across a restated preposition ("§§ 6 oder 9
  oder nach § 12 des Strahlenschutzgesetzes");
* a bare "Artikel N" of no named act is dropped (amendment notes: "Art. 1 G v. 10.8.2021").

Law names are recognised by form (:mod:`rabbithole.references.lawnames`), also split over a line end
("des Atom-\ngesetzes", "des Bundes-\nImmissionsschutzgesetzes", PDF text's "Bundes- Immissionsschutz...").

Never references: gazette citations ("BGBl. I S. 1565", "GBl. I Nr. 34", "ABl. L 13 vom 17.1.2014, S. 1"),
amendment notes ("Bek. v. 3.1.2022 I 14 (Nr. 1)"), dates, decimals, amounts after a list separator ("und
2 Jahre"), list markers at a line start ("oder\n2.  die ..."), the *label* of a heading: a Markdown heading
("### § 7 Genehmigung von Anlagen") or, in plain/PDF text, a line "§ 7 Genehmigung ..." (a capitalised
title after the label) whose previous line is blank, ends a sentence or ends in a capitalised word (another
heading, a page header); after a line ending in a lower-case word ("im Sinne des\n§ 7 Verwendung finden")
it is a citation. ``skip_headings=False`` reports heading labels too.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from typing import Final

from rabbithole.references import patterns_academic as acad
from rabbithole.references import patterns_legal as pl
from rabbithole.references.chains import ChainParser
from rabbithole.references.documents import document_mentions
from rabbithole.references.lawnames import (
    EU_ACT_RE,
    EU_NUM_RE,
    EU_PLURAL_RE,
    EU_SINGULAR,
    THIS_DOC_RE,
    collapse,
    match_abbreviation,
    match_law_name,
    normalize_eu_act,
)
from rabbithole.references.models import Reference, RefType
from rabbithole.references.notes import amendment_spans, version_after

__all__ = ["RefType", "Reference", "detect_references"]

# Triggers: one alternation of plain literals (no groups, no look-arounds, so ``re`` scans it fast); the
# matched literal selects the handler, which checks word boundaries and parses with anchored ``match``.
_TRIGGERS: Final = {
    "chain": "§ Artikel Art. Article Anlage Anhang Anhäng Annex Absatz Absätz Abs. Satz Sätze Nummer Nr. "
    "Nrn. Ziffer Ziff. Buchstabe Buchst. Teil",
    "eu": "Verordnung Richtlinie Beschluss Entscheidung Empfehlung "
    "Directive Regulation Decision Recommendation",
    "lawhead": "Gesetz Übereinkommen Vertrag",
    "lawsuf": "gesetzbuch gesetz verordnung ordnung übereinkommen",
    "this": "dies Dies this This",
    "brk": "[",
    "par": "(",
    "div": "Unterabschnitt Abschnitt Kapitel Section section Sect. Sec. sect. sec. Chapter chapter Ch. "
    "Appendi appendi",
    "std": "DIN EN ISO IEC VDE VDI KTA ICRP NUREG ANSI ASTM IEEE BS ASME IAEA",
    "url": "https:// http:// ftp:// www. doi:",
    "gazette": "BGBl Bl. Bundesgesetzblatt Amtsblatt BAnz Bundesanzeiger",
    "amend": "v.",
}
_TRIGGER_KIND: Final = {lit: kind for kind, lits in _TRIGGERS.items() for lit in lits.split()}
_TRIGGER_RE: Final = re.compile(
    "|".join(re.escape(lit) for lit in sorted(_TRIGGER_KIND, key=lambda x: (-len(x), x)))
)
_ABBR_END_RE: Final = re.compile(r"[GVOB](?![\w-])")
_LEFT_BOUNDARY_KINDS: Final = frozenset({"chain", "eu", "lawhead", "this", "div", "std", "url", "amend"})
_LAW_END_RE: Final = re.compile(r"(?:es|s|e)?(?![\w])")
_LAWHEAD_END_RE: Final = re.compile(r"(?:es|s|e)?(?![\w-])")
_TEIL_PART_RE: Final = re.compile(r"e?s?\s+[A-Z](?![\w])")
_PAR_START_RE: Final = re.compile(r"\((?:see |e\.g\.|cf\. |vgl\. |siehe )?[A-ZÄÖÜ][a-zäöü]")
_NAR_START_RE: Final = re.compile(r"\((?:1[6-9]|20)\d\d[a-z]?[,)]")
_PRE_LAW_RE: Final = re.compile(
    rf"(?:(?<![\w])(?:des|der|dem|den|das|die|im|zum|zur|vom|beim){pl.WS1})?"
    rf"(?:[A-ZÄÖÜ][a-zäöü]+te[nsr]?{pl.WS1}Buch(?:es|s)?{pl.WS1}|[A-ZÄÖÜ][a-zäöüß]+(?:en|es|e|er){pl.WS1})?\Z"
)
_PRE_ABBR_RE: Final = re.compile(
    rf"(?:(?<![\w])(?P<art>des|der|dem|den|das|die|im|zum|zur|vom|beim)|(?<![\w])(?:nach|gemäß|laut|von|mit)){pl.WS1}\Z"
)


def detect_references(
    text: str, *, skip_headings: bool = True, types: Collection[RefType] | None = None
) -> list[Reference]:
    """All references in ``text``, ordered by position. ``types`` keeps only those types."""
    refs = _Scanner(text, skip_headings).run()
    notes = amendment_spans(text)
    if notes:
        refs = [r for r in refs if not any(s <= r.start < e for s, e in notes)]
    refs = [_with_version(text, r) for r in refs]
    extra = document_mentions(text, [(r.start, r.end) for r in refs] + notes)
    if extra:
        refs = sorted([*refs, *extra], key=lambda r: (r.start, r.item_start))
    if types is not None:
        wanted = set(types)
        refs = [r for r in refs if r.type in wanted]
    return refs


def _with_version(text: str, ref: Reference) -> Reference:
    """The reference with the version of its law, when one follows the mention ("vom 20. Juli 2001")."""
    if ref.law_normalized is None or ref.external or ref.same_document:
        return ref
    version = version_after(text, ref.end)
    if version is None:
        return ref
    return replace(ref, version=version.text, version_date=version.date, version_until=version.until)


class _Scanner(ChainParser):
    def never_reference(self, pos: int, kind: str) -> int | None:
        """End of a gazette citation ("BGBl. I S. 1565") or amendment note ("G v. 10.8.2021 I 3530")."""
        text = self.text
        if kind == "amend":
            if not pl.AMENDMENT_BEFORE_RE.search(text, max(0, pos - 12), pos):
                return None
            m = pl.AMENDMENT_RE.match(text, pos)
        else:
            start = pos
            while start > 0 and text[start - 1].isalpha():
                start -= 1
            m = pl.GAZETTE_RE.match(text, start)
        return m.end() if m else None

    def triggers(self) -> list[tuple[int, int, str]]:
        text = self.text
        found = [(m.start(), m.end(), _TRIGGER_KIND[m.group()]) for m in _TRIGGER_RE.finditer(text)]
        found += [
            (m.start(), m.end(), "abbr")
            for m in _ABBR_END_RE.finditer(text)
            if m.start() > 0 and text[m.start() - 1].isalpha()
        ]
        found.sort()
        return found

    def run(self) -> list[Reference]:
        out: list[Reference] = []
        done = 0
        text = self.text
        for pos, tend, kind in self.triggers():
            if pos < done:
                continue
            glued = pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "-_")
            if glued and kind in _LEFT_BOUNDARY_KINDS and not (kind == "lawhead" and text[pos - 1] == "-"):
                continue  # inside a word (a hyphen is fine before "Vertrag": "EG-Vertrag")
            found: tuple[list[Reference], int] | None = None
            if kind == "chain":
                if text.startswith("Teil", pos) and not _TEIL_PART_RE.match(text, tend):
                    found = self.division(pos)
                else:
                    found = self.chain(pos)
            elif kind == "eu":
                found = self.eu_act(pos)
                if not found and text.startswith("Verordnung", pos) and _LAWHEAD_END_RE.match(text, tend):
                    found = self.law_standalone(pos, tend, done)
            elif kind == "lawhead":
                if _LAWHEAD_END_RE.match(text, tend):
                    found = self.law_standalone(pos, tend, done)
            elif kind == "lawsuf":
                if _LAW_END_RE.match(text, tend):
                    found = self.law_standalone(pos, tend, done)
            elif kind == "this":
                found = self.this_document(pos)
            elif kind == "abbr":
                found = self.abbreviation(pos, tend, done)
            elif kind in ("gazette", "amend"):
                end = self.never_reference(pos, kind)
                if end:
                    done = max(done, end)
            elif kind == "brk":
                found = acad.parse_numbered(text, pos) or acad.parse_bracket_keys(text, pos)
            elif kind == "par":
                if _PAR_START_RE.match(text, pos):
                    found = acad.parse_parenthetical(text, pos)
                elif _NAR_START_RE.match(text, pos):
                    found = acad.parse_narrative(text, pos)
                    if found and found[0] and found[0][0].start < done:
                        found = None
            elif kind == "div":
                found = self.division(pos)
            elif kind == "std":
                found = acad.parse_standard(text, pos)
            else:
                found = acad.parse_url(text, pos)
            if found:
                refs, end = found
                out.extend(refs)
                done = max(done, end)
        out.sort(key=lambda r: (r.start, r.item_start))
        return out

    def eu_act(self, pos: int) -> tuple[list[Reference], int] | None:
        m = EU_ACT_RE.match(self.text, pos)
        if not m:
            return self.eu_acts(pos)
        name = normalize_eu_act(m)
        ref = Reference(
            RefType.EU_ACT,
            m.group(),
            pos,
            m.end(),
            m.start("num"),
            m.end("num"),
            law=collapse(m.group()),
            law_normalized=name,
            external=True,
        )
        return [ref], m.end()

    def eu_acts(self, pos: int) -> tuple[list[Reference], int] | None:
        """Plural lists: "Richtlinien 89/618/Euratom, 90/641/Euratom und 2003/122/Euratom"."""
        m = EU_PLURAL_RE.match(self.text, pos)
        if not m:
            return None
        kind = EU_SINGULAR[m.group("kind")] + (f" ({m.group('org')})" if m.group("org") else "")
        refs = []
        for n in EU_NUM_RE.finditer(m.group("list")):
            s = m.start("list") + n.start()
            refs.append(
                Reference(
                    RefType.EU_ACT,
                    m.group(),
                    pos,
                    m.end(),
                    s,
                    s + len(n.group()),
                    law=collapse(m.group()),
                    law_normalized=f"{kind} {n.group()}",
                    external=True,
                )
            )
        return refs, m.end()

    def this_document(self, pos: int) -> tuple[list[Reference], int] | None:
        m = THIS_DOC_RE.match(self.text, pos)
        if not m:
            return None
        ref = Reference(
            RefType.LAW, m.group(), pos, m.end(), pos, m.end(), law=collapse(m.group()), same_document=True
        )
        return [ref], m.end()

    def word_start(self, i: int) -> int:
        """Start of the (possibly hyphenated, possibly line-wrapped) word whose part starts at ``i``."""
        text = self.text
        while True:
            j = i
            while j > 0 and text[j - 1].isalpha():
                j -= 1
            k = j
            while k > 0 and text[k - 1] in " \t\f\r":
                k -= 1
            if k > 0 and text[k - 1] == "\n":  # "Atom-\n    gesetzes"
                k -= 1
                while k > 0 and text[k - 1] in " \t\r":
                    k -= 1
            elif k < j and not text[j].isupper():  # "Bundes- Immissionsschutzgesetz" only before a capital
                return j
            if k > 1 and text[k - 1] == "-" and text[k - 2].isalpha():
                i = k - 1
                continue
            return j

    def law_standalone(self, pos: int, trig_end: int, done: int) -> tuple[list[Reference], int] | None:
        text = self.text
        ws = self.word_start(pos)
        if ws < done:
            return None
        pre = _PRE_LAW_RE.search(text, max(done, ws - 60), ws)
        starts = [pre.start(), ws] if pre and pre.start() < ws else [ws]
        for s in starts:
            lm = match_law_name(text, s, in_chain=False)
            if lm and lm.end >= trig_end and lm.kind in ("law", "treaty"):
                rtype = RefType.TREATY if lm.kind == "treaty" else RefType.LAW
                ref = Reference(
                    rtype,
                    text[s : lm.end],
                    s,
                    lm.end,
                    ws,
                    lm.end,
                    law=lm.raw,
                    law_normalized=lm.normalized,
                    external=lm.kind == "treaty",
                )
                return [ref], lm.end
        return None

    def abbreviation(self, pos: int, trig_end: int, done: int) -> tuple[list[Reference], int] | None:
        text = self.text
        ws = pos
        while ws > 0 and (
            text[ws - 1].isalpha() or (text[ws - 1] == "-" and ws > 1 and text[ws - 2].isalpha())
        ):
            ws -= 1
        if ws < done:
            return None
        pre = _PRE_ABBR_RE.search(text, max(done, ws - 12), ws)
        ab = match_abbreviation(text, ws)
        if not pre or not ab or ab.end() != trig_end:
            return None
        s = pre.start("art") if pre.group("art") else ws
        ref = Reference(
            RefType.LAW,
            text[s:trig_end],
            s,
            trig_end,
            ws,
            trig_end,
            law=collapse(text[s:trig_end]),
            law_normalized=ab.group(),
        )
        return [ref], trig_end

    def division(self, pos: int) -> tuple[list[Reference], int] | None:
        found = acad.parse_division(self.text, pos)
        if not found:
            return None
        refs, end = found
        if self.skip_headings and self.is_heading_label(pos, end):
            return [], end
        law = self.law_phrase(end, allow_comma=False)
        if law:
            mention = self.text[pos : law.end]
            refs = [
                replace(
                    r,
                    mention=mention,
                    end=law.end,
                    law=law.raw,
                    law_normalized=law.normalized,
                    same_document=law.kind == "this",
                    external=law.kind in ("eu", "treaty"),
                )
                for r in refs
            ]
            end = law.end
        return refs, end
