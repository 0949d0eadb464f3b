"""Build the manual: every page of SUMMARY.md, from Markdown to a plain HTML page.

python3 scripts/build_docs.py docs/src site
"""

import html
import re
import sys
from pathlib import Path

LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\.md\)")


def render(markdown: str) -> str:
    out, para, code = [], [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("    "):
            code.append(html.escape(line[4:]))
            continue
        if code:
            out.append("<pre>" + "\n".join(code) + "</pre>")
            code = []
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{html.escape(line[level:].strip())}</h{level}>")
        elif line.strip():
            para.append(LINK.sub(r'<a href="\2.html">\1</a>', html.escape(line)))
        elif para:
            out.append("<p>" + " ".join(para) + "</p>")
            para = []
    return "\n".join(out) + "\n"


def main() -> None:
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    target.mkdir(parents=True, exist_ok=True)
    pages = LINK.findall((source / "SUMMARY.md").read_text(encoding="utf-8"))
    for title, name in pages:
        body = render((source / f"{name}.md").read_text(encoding="utf-8"))
        page = f"<!doctype html>\n<title>{html.escape(title)}</title>\n{body}"
        (target / f"{name}.html").write_text(page, encoding="utf-8")
    print(f"{len(pages)} pages -> {target}")


if __name__ == "__main__":
    main()
