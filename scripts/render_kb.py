"""Render the sample knowledge base: German federal laws (Markdown) -> real, multi-page PDFs.

Usage:
    .venv/bin/python scripts/render_kb.py --source ../shared/corpus/de-laws [--out kb/sample] [--only AtG]

Input: the Markdown of bundestag/gesetze (YAML front matter with Title and jurabk; `##`..`######` headings for
Teil/Kapitel/Abschnitt and the § headings; paragraphs "(1)" and lists "1."/"a)" hard-wrapped at ~70 chars).
Output: one A4 PDF per law, named as in the corpus README (AtG.pdf, StrlSchG.pdf, ...): title and the
Ausfertigungsdatum/Fundstelle lines on page 1, bold headings, re-flowed paragraphs, hanging-indent lists, a
running header (the abbreviation) and a footer "Seite N von M". DejaVu (subset): §, umlauts, „“, – render.
The output is deterministic (fixed creation date, content-derived file id): re-rendering does not churn git.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from fpdf import FPDF

# Source Markdown file -> PDF name in the sample collection (see the corpus README).
PDF_NAMES: dict[str, str] = {
    "atav_2009.md": "AtAV.pdf",
    "atdeckv_1977.md": "AtDeckV.pdf",
    "atev.md": "AtEV.pdf",
    "atg.md": "AtG.pdf",
    "atkostv.md": "AtKostV.pdf",
    "atsmv.md": "AtSMV.pdf",
    "atvfv.md": "AtVfV.pdf",
    "atzuev.md": "AtZüV.pdf",
    "bastrlschg.md": "BAStrlSchG.pdf",
    "endlagervlv.md": "EndlagerVlV.pdf",
    "endlsianfv.md": "EndlSiAnfV.pdf",
    "endlsiuntv.md": "EndlSiUntV.pdf",
    "entsorgueg.md": "EntsorgÜG.pdf",
    "imis-zustv.md": "IMIS-ZustV.pdf",
    "standag_2017.md": "StandAG.pdf",
    "strlschg.md": "StrlSchG.pdf",
    "strlschv_2018.md": "StrlSchV.pdf",
}

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
# Snapshot date of the source repository: fixed so that re-rendering is byte-identical.
CREATION_DATE = datetime(2022, 3, 26, 0, 0, 0, tzinfo=UTC)

# Layout (mm / pt).
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 25.0, 20.0, 22.0, 20.0
BODY_PT = 10.0
SMALL_PT = 8.5
INDENT_MM = 7.0
PARA_GAP_MM = 1.8
# Heading size by Markdown level (2..6); § headings get SECTION_PT.
HEADING_PT = {2: 13.0, 3: 12.0, 4: 11.5, 5: 11.0, 6: 11.0}
SECTION_PT = 10.5
TITLE_PT = 15.0

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_DEF_VALUE = re.compile(r"^:\s+(.*)$")
_FOOTNOTE_DEF = re.compile(r"^\[\^[^\]]+\]:\s*(.*)$")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]]+\]")
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]*)\)")
_LIST_ITEM = re.compile(r"^(\s*)(\d{1,3}[a-z]?\.|[a-z]{1,3}\)|[ivx]{1,5}\.)\s+(\S.*)$")
_BULLETS = re.compile(r"^(\s*)((?:\*(?:\s+|$))+)(.*)$")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~\"'])")
_SECTION_HEADING = re.compile(r"^(?:§§?|Art\.?|Artikel)\s*\d")
_ANNEX = re.compile(r"^(?:Anlage|Anhang)\b")
_ANNEX_REF = re.compile(r"^\(zu .*\)$")
_WS = re.compile(r"[ \t\r\n]+")  # keeps NO-BREAK SPACE


@dataclass(frozen=True, slots=True)
class Block:
    kind: str  # "heading", "para", "item", "note"
    text: str
    level: int = 0  # heading: Markdown level; para/item: indent depth
    label: str = ""  # list label ("1.", "a)")
    bold: bool = False


@dataclass(frozen=True, slots=True)
class Law:
    title: str  # full title with the abbreviation in parentheses, as in the Markdown H1
    abbreviation: str  # short official abbreviation (PDF name), e.g. "AtAV"
    jurabk: str  # juris abbreviation, e.g. "AtAV 2009"
    metadata: list[tuple[str, str]]  # ("Ausfertigungsdatum", "1959-12-23"), ...
    blocks: list[Block]


def inline(text: str) -> tuple[str, bool]:
    """Markdown inline -> plain text; returns (text, whole text was bold)."""
    text = _IMAGE.sub(lambda m: f"[Abbildung: {m.group(1)}]", text)
    text = _FOOTNOTE_REF.sub("", text)
    text = _WS.sub(" ", text).strip()
    bold = len(text) > 4 and text.startswith("**") and text.endswith("**") and "**" not in text[2:-2]
    text = text.replace("**", "")
    text = _ESCAPE.sub(r"\1", text)
    return _WS.sub(" ", text).strip(), bold


def _split_front_matter(lines: list[str]) -> tuple[dict[str, object], list[str]]:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                meta = yaml.safe_load("\n".join(lines[1:i])) or {}
                return (meta if isinstance(meta, dict) else {}), lines[i + 1 :]
    return {}, lines


def _paragraphs(lines: list[str]) -> Iterator[list[str]]:
    """Runs of non-blank lines."""
    run: list[str] = []
    for line in lines:
        if line.strip():
            run.append(line.rstrip())
        elif run:
            yield run
            run = []
    if run:
        yield run


def _depth(spaces: str) -> int:
    return len(spaces.expandtabs(4)) // 4


def parse_markdown(source: str, pdf_name: str) -> Law:
    meta, lines = _split_front_matter(source.splitlines())
    jurabk = str(meta.get("jurabk", "")).strip()
    abbreviation = Path(pdf_name).stem
    title = ""
    metadata: list[tuple[str, str]] = []
    blocks: list[Block] = []
    pending_term: str | None = None
    in_front = True  # between the H1 and the first real heading: definition list with the metadata
    for run in _paragraphs(lines):
        first = run[0]
        heading = _HEADING.match(first)
        if heading and len(heading.group(1)) == 1:
            title, _ = inline(" ".join([heading.group(2), *run[1:]]))
            continue
        if in_front and not heading and len(run) >= 2 and _DEF_VALUE.match(run[1]):
            pending_term, run = inline(first)[0], run[1:]
            first = run[0]
        if in_front and not heading:
            value = _DEF_VALUE.match(first)
            if value and pending_term is not None:
                metadata.append((pending_term, inline(" ".join([value.group(1), *run[1:]]))[0]))
                pending_term = None
                continue
            if len(run) == 1 and not _FOOTNOTE_DEF.match(first) and not _LIST_ITEM.match(first):
                pending_term = inline(first)[0]
                continue
        if heading:
            in_front = False
            text, _ = inline(" ".join([heading.group(2), *run[1:]]))
            text = re.sub(r"^\(XXXX\)\s*", "", text).strip(" -")
            if text:
                blocks.append(Block("heading", text, level=len(heading.group(1))))
            continue
        note = _FOOTNOTE_DEF.match(first)
        if note:
            text, _ = inline(" ".join([note.group(1), *run[1:]]))
            if text:
                blocks.append(Block("note", text))
            continue
        # A "## ..." line inside a run is a conversion artefact of a table cell: plain text.
        run = [re.sub(r"^#{1,6}\s+", "", line) for line in run]
        item = _LIST_ITEM.match(run[0])
        if item:
            text, bold = inline(" ".join([item.group(3), *run[1:]]))
            blocks.append(Block("item", text, level=_depth(item.group(1)), label=item.group(2), bold=bold))
            continue
        bullets = _BULLETS.match(run[0])
        if bullets:
            depth = _depth(bullets.group(1)) + bullets.group(2).count("*") - 1
            parts = [bullets.group(3)]
            for line in run[1:]:
                stripped = _BULLETS.match(line)
                parts.append(stripped.group(3) if stripped else line)
            text, bold = inline(" ".join(parts))
            sub_item = _LIST_ITEM.match(text)
            if sub_item:
                blocks.append(
                    Block("item", sub_item.group(3), level=min(depth, 4), label=sub_item.group(2), bold=bold)
                )
            elif text:
                blocks.append(Block("para", text, level=min(depth, 4), bold=bold))
            continue
        text, bold = inline(" ".join(run))
        if text:
            indent = len(run[0]) - len(run[0].lstrip(" "))
            blocks.append(Block("para", text, level=min(indent // 4, 4), bold=bold))
    # The source puts an annex's "(zu § 2)" reference line before its heading; print it under the heading.
    for i in range(len(blocks) - 1):
        if (
            blocks[i].kind == "para"
            and _ANNEX_REF.match(blocks[i].text)
            and blocks[i + 1].kind == "heading"
            and _ANNEX.match(blocks[i + 1].text)
        ):
            blocks[i], blocks[i + 1] = blocks[i + 1], blocks[i]
    if not title:
        title = f"{meta.get('Title', abbreviation)} ({jurabk or abbreviation})"
    return Law(title=title, abbreviation=abbreviation, jurabk=jurabk, metadata=metadata, blocks=blocks)


class LawPDF(FPDF):
    def __init__(self, law: Law) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.law = law
        self.add_font("DejaVu", "", str(FONT_DIR / "DejaVuSans.ttf"))
        self.add_font("DejaVu", "B", str(FONT_DIR / "DejaVuSans-Bold.ttf"))
        self.set_margins(MARGIN_LEFT, MARGIN_TOP, MARGIN_RIGHT)
        self.set_auto_page_break(True, MARGIN_BOTTOM)
        self.alias_nb_pages("{nb}")
        self.set_title(law.title)
        self.set_subject(law.abbreviation)
        self.set_keywords(", ".join(dict.fromkeys([law.abbreviation, law.jurabk]).keys()))
        self.set_author("Bundesrepublik Deutschland")
        self.set_creator("Rabbithole scripts/render_kb.py (source: bundestag/gesetze, snapshot 2022-03-26)")
        self.set_producer("Rabbithole render_kb")
        self.set_lang("de-DE")
        self.set_creation_date(CREATION_DATE)

    def header(self) -> None:
        self.set_font("DejaVu", "", SMALL_PT)
        self.set_text_color(90, 90, 90)
        self.set_xy(MARGIN_LEFT, 10)
        self.cell(self.epw, 5, self.law.abbreviation, align="L")
        self.set_draw_color(160, 160, 160)
        self.line(MARGIN_LEFT, 15.5, self.w - MARGIN_RIGHT, 15.5)
        self.set_text_color(0, 0, 0)
        self.set_xy(MARGIN_LEFT, MARGIN_TOP)

    def footer(self) -> None:
        self.set_font("DejaVu", "", SMALL_PT)
        self.set_text_color(90, 90, 90)
        self.set_xy(MARGIN_LEFT, self.h - 13)
        self.cell(self.epw, 5, f"Seite {self.page_no()} von {{nb}}", align="C")
        self.set_text_color(0, 0, 0)

    # --- blocks -------------------------------------------------------------------------------------------

    def _line_height(self, pt: float) -> float:
        return pt * 0.3528 * 1.35

    def _flow(self, text: str, pt: float, bold: bool, x_first: float, x_rest: float) -> None:
        """Left-aligned text: the first line starts at x_first, continuation lines at x_rest."""
        self.set_font("DejaVu", "B" if bold else "", pt)
        left = self.l_margin
        self.set_left_margin(x_rest)
        self.set_x(x_first)
        self.write(self._line_height(pt), text)
        self.ln(self._line_height(pt))
        self.set_left_margin(left)

    def _keep_space(self, mm: float) -> None:
        if self.get_y() + mm > self.page_break_trigger:
            self.add_page()

    def title_page(self) -> None:
        self.add_page()
        self.set_font("DejaVu", "B", TITLE_PT)
        self.multi_cell(self.epw, self._line_height(TITLE_PT), self.law.title, align="L")
        self.ln(3)
        self.set_font("DejaVu", "", 9)
        for term, value in self.law.metadata:
            self._flow(f"{term}: {value}", 9, False, MARGIN_LEFT, MARGIN_LEFT + INDENT_MM)
        self.ln(5)

    def heading(self, block: Block) -> None:
        section = bool(_SECTION_HEADING.match(block.text))
        pt = SECTION_PT if section else HEADING_PT.get(block.level, 11.0)
        self.ln(3.5 if section else 5.0)
        self._keep_space(self._line_height(pt) * 2 + self._line_height(BODY_PT) * 2)
        self._flow(block.text, pt, True, MARGIN_LEFT, MARGIN_LEFT)
        self.ln(1.2)

    def para(self, block: Block) -> None:
        x = MARGIN_LEFT + block.level * INDENT_MM
        self._flow(block.text, BODY_PT, block.bold, x, x)
        self.ln(PARA_GAP_MM)

    def item(self, block: Block) -> None:
        x = MARGIN_LEFT + block.level * INDENT_MM
        self.set_font("DejaVu", "B" if block.bold else "", BODY_PT)
        label = block.label + " "
        x_text = max(x + self.get_string_width(label), x + INDENT_MM * 0.8)
        if x_text > x + self.get_string_width(label):  # align short labels: pad with spaces
            while x + self.get_string_width(label + " ") <= x_text:
                label += " "
            x_text = x + self.get_string_width(label)
        self._flow(label + block.text, BODY_PT, block.bold, x, x_text)
        self.ln(PARA_GAP_MM * 0.6)

    def note(self, block: Block) -> None:
        self._flow(block.text, SMALL_PT, False, MARGIN_LEFT, MARGIN_LEFT)
        self.ln(PARA_GAP_MM)

    def render(self) -> bytes:
        self.title_page()
        for block in self.law.blocks:
            getattr(self, block.kind)(block)
        return bytes(self.output())


def render_file(source: Path, out_dir: Path) -> tuple[Path, int, int]:
    pdf_name = PDF_NAMES[source.name]
    law = parse_markdown(source.read_text(encoding="utf-8"), pdf_name)
    pdf = LawPDF(law)
    data = pdf.render()
    target = out_dir / pdf_name
    if not target.exists() or target.read_bytes() != data:
        target.write_bytes(data)
    return target, pdf.pages_count, len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", type=Path, required=True, help="folder with the Markdown laws (de-laws)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "kb" / "sample")
    parser.add_argument("--only", action="append", default=[], help="render only these PDF names/stems")
    args = parser.parse_args(argv)
    missing = [name for name in PDF_NAMES if not (args.source / name).is_file()]
    if missing:
        print(f"missing in {args.source}: {', '.join(missing)}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = {Path(name).stem for name in args.only}
    total = 0.0
    for md_name, pdf_name in PDF_NAMES.items():
        if wanted and Path(pdf_name).stem not in wanted:
            continue
        started = time.perf_counter()
        target, pages, size = render_file(args.source / md_name, args.out)
        elapsed = time.perf_counter() - started
        total += elapsed
        print(f"{target.name:18} {pages:5d} pages {size / 1024:8.1f} KiB {elapsed:6.1f} s")
    print(f"done in {total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
