"""Screenshot of an HTML report in headless Chromium (draws docs/report_html.png).

Usage::

    python tools/html_screenshot.py runs/six/report/report.html docs/report_html.png --row 1

Opens the page (tests/reporting/chromium.py, the test suite's driver of the system's
Chromium over the DevTools protocol), fails if it logs a console error, optionally scrolls to
a section or opens an episode of the browser, and saves a PNG of the window.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _palette(png: bytes, out: Path, colors: int) -> None:
    """Rewrite ``out`` as a palette PNG of ``colors`` colors (median cut, no dithering)."""
    import io

    from PIL import Image

    from rsb_mj.atomic import atomic_write_bytes

    image = Image.open(io.BytesIO(png)).convert("RGB")
    small = image.quantize(colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    atomic_write_bytes(out, buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    """Draw the screenshot; 0 on success, 1 when the page logged errors."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="report.html")
    parser.add_argument("out", type=Path, help="PNG to write")
    parser.add_argument("--width", type=int, default=1400, help="window width [px]")
    parser.add_argument("--height", type=int, default=1000, help="window height [px]")
    parser.add_argument(
        "--section", default=None, help="scroll to the element with this id (e.g. sec-table1_tsr)"
    )
    parser.add_argument(
        "--row",
        type=int,
        default=None,
        metavar="N",
        help="scroll to the episode browser and open its N-th row (1-based)",
    )
    parser.add_argument(
        "--colors",
        type=int,
        default=None,
        metavar="N",
        help="write a palette PNG of N colors (smaller files for docs/; default: RGB)",
    )
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root
    from tests.reporting.chromium import BrowserError, Chromium

    try:
        browser = Chromium(width=args.width, height=args.height)
    except BrowserError as exc:
        print(f"html_screenshot: {exc}", file=sys.stderr)
        return 1
    with browser:
        page = browser.open(args.page)
        if args.section:
            page.evaluate(f"document.getElementById({json.dumps(args.section)}).scrollIntoView()")
        if args.row is not None:
            page.evaluate(
                "(() => { document.getElementById('episodes').scrollIntoView();"
                f" document.querySelectorAll('#ep-table tbody tr')[{args.row - 1}].click(); }})()"
            )
        data = page.screenshot(args.out)
        if args.colors:
            _palette(data, args.out, args.colors)
        if page.errors:
            print("\n".join(page.errors), file=sys.stderr)
            return 1
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
