"""Read a built site as a reader elsewhere meets it: served under a sub-path, as GitHub Pages serves
a project (``https://OWNER.github.io/rankscale/``), every page opened in headless Chromium with
the network cut off, and what goes wrong listed:

    .venv/bin/python scripts/crawl_site.py _build/html [--prefix /rankscale/] [--json out.json] [--no-axe]

From the start page it follows every link that stays under the prefix, breadth first. A link to
a file that is not an HTML page (a notebook download, a .csv, an image) is checked by a request
but not opened. On every page it records console errors and uncaught errors, responses of status
400 or more, requests that leave the site (aborted), images of the main content that did not
load, math that MathJax left untypeset in the prose, the element ids (so that each link's
``#fragment`` is checked), axe-core's accessibility violations and the page's weight (the bytes of
everything its load fetched). Then it searches (``search.html?q=WORD``, a word of the start
page) and counts the results. A link written as an absolute path (``/other.html``) breaks here
as it would on Pages, since nothing outside the prefix is served.

It prints a summary and exits 1 when ``Report.problems()`` is not empty (axe violations count
there when their impact is serious or critical; moderate and minor ones are in the summary).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import re
import shutil
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The launch that works on this project's machines (the book's tests use it too): no sandbox (root in a
# container), no GPU, and none of Chromium's own traffic (updates, sync, QUIC probes).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Math that MathJax did not typeset, as it reaches the reader: \( \[ $$ or a $...$ pair.
RAW_MATH = re.compile(r"\\\(|\\\[|\$\$|\$[^\s$][^$\n]*\$")
# The page's text as the reader sees it, without code listings (where $ and \( are code).
PROSE = """() => {
    const code = [...document.querySelectorAll('pre, code')];
    const shown = code.map(e => e.style.display);
    code.forEach(e => e.style.display = 'none');
    const text = document.body.innerText;
    code.forEach((e, i) => e.style.display = shown[i]);
    return text;
}"""
# Every link of the page: as written, and as the browser resolves it.
LINKS = """() => [...document.querySelectorAll('a[href]')].map(a => {  // an SVG <a> too, whose .href is no string
    const href = a.getAttribute('href');
    try { return [href, new URL(href, document.baseURI).href]; } catch (error) { return [href, '']; } })"""
# What a #fragment may name: an element's id, or an <a name>.
IDS = """() => [...document.querySelectorAll('[id]')].map(e => e.id)
    .concat([...document.querySelectorAll('a[name]')].map(a => a.name))"""
# The images of the main content that did not load (lazy ones are asked for first).
EMPTY_IMAGES = """async () => {
    const root = document.querySelector('main') || document.body;
    const images = [...root.querySelectorAll('img')];
    images.forEach(i => { if (i.loading === 'lazy') i.loading = 'eager'; });
    await Promise.all(images.map(i => i.complete ? null : new Promise(done => {
        i.addEventListener('load', done); i.addEventListener('error', done); setTimeout(done, 5000); })));
    return images.filter(i => i.naturalWidth === 0).map(i => i.getAttribute('src') || i.currentSrc || '');
}"""
MAIN_TEXT = "() => (document.querySelector('article') || document.querySelector('main') || document.body).innerText"
MATHJAX_READY = "() => !window.MathJax || !!(window.MathJax.startup && window.MathJax.startup.promise)"
MATHJAX_DONE = "() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise.then(() => true) : null"
# Sphinx's search page: done when it lists a result or says it is finished.
SEARCH_DONE = """() => { const box = document.querySelector('#search-results');
    return !!box && (box.querySelectorAll('li').length > 0 || /finished|did not match|found/i.test(box.innerText)); }"""
SEARCH_COUNT = "() => document.querySelectorAll('#search-results li').length"
# A page that only sends the reader on (Jupyter Book's index.html): followed as a link, not opened.
META_REFRESH = re.compile(r"""<meta[^>]*http-equiv=["']?refresh["']?[^>]*content=["']?\s*\d*\s*;?\s*url=([^"'>\s]+)""",
                          re.IGNORECASE)
SKIPPED_SCHEMES = ("mailto:", "javascript:", "tel:", "data:")
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Sphinx's English stop words of five letters or more (never found by its search).
STOP_WORDS = {"their", "there", "these", "which", "would", "about", "should", "could"}
IMPACTS = ("critical", "serious", "moderate", "minor")
# Chromium's own console line for a failed load: reported as a failed response or a request that left.
FAILED_LOAD = "Failed to load resource"


# --- serving ---------------------------------------------------------------------------------

def normal_prefix(prefix: str) -> str:
    """``rankscale``, ``/rankscale`` and ``/rankscale/`` all mean ``/rankscale/``; ``/`` is the root."""
    inner = prefix.strip("/")
    return f"/{inner}/" if inner else "/"


class PrefixHandler(http.server.SimpleHTTPRequestHandler):
    """Serves its directory under ``prefix`` only; any other path is a 404, as on GitHub Pages for a
    project site (``/rankscale`` without its slash is redirected, as Pages does, and a folder
    without an index.html is a 404, not a listing)."""

    prefix = "/"

    def send_head(self):
        path = urllib.parse.urlsplit(self.path).path
        if path + "/" == self.prefix:
            self.send_response(301)
            self.send_header("Location", self.prefix)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if not path.startswith(self.prefix):
            self.send_error(404, f"not under {self.prefix}")
            return None
        return super().send_head()

    def list_directory(self, path):  # Pages lists no folder: without its index.html, a folder is a 404
        self.send_error(404, "no index.html here")
        return None

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, *args) -> None:
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser that hangs up is no news
            super().handle_error(request, client_address)


def serve_under(directory: str | Path, prefix: str = "/rankscale/"):
    """Serve ``directory`` at ``http://127.0.0.1:PORT{prefix}`` (a free port) from a thread, nothing
    outside the prefix. Returns ``(server, base URL ending in the prefix)``; ``server.shutdown()``
    stops it."""
    prefix = normal_prefix(prefix)
    handler = type("Handler", (PrefixHandler,), {"prefix": prefix})
    httpd = QuietServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}{prefix}"


# --- the report ------------------------------------------------------------------------------

@dataclass
class Violation:
    """One axe-core rule broken on one page."""

    rule: str
    impact: str
    nodes: int  # how many elements break it
    page: str
    target: str  # the first element's CSS selector
    help: str = ""


@dataclass
class Report:
    base: str = ""
    pages: list[str] = field(default_factory=list)  # opened in the browser, in crawl order
    links_checked: int = 0  # distinct internal links (page, resolved URL) checked
    broken_links: list[tuple[str, str, str]] = field(default_factory=list)  # (page, href, reason)
    missing_anchors: list[tuple[str, str]] = field(default_factory=list)  # (page, href)
    console_errors: list[tuple[str, str]] = field(default_factory=list)  # (page, text)
    page_errors: list[tuple[str, str]] = field(default_factory=list)  # (page, message)
    left_site: list[str] = field(default_factory=list)  # URLs the pages asked for outside the site
    failed_responses: list[tuple[str, str, str]] = field(default_factory=list)  # (page, URL, status or failure)
    untypeset_math: list[tuple[str, str]] = field(default_factory=list)  # (page, the raw text)
    empty_images: list[tuple[str, str]] = field(default_factory=list)  # (page, src)
    axe: list[Violation] = field(default_factory=list)
    axe_run: bool = False  # False: --no-axe, the summary says "not checked"
    search_word: str | None = None
    search_results: int | None = None  # None: the site has no search.html
    weights: dict[str, int] = field(default_factory=dict)  # page: bytes its load fetched
    largest_page: tuple[str, int] = ("", 0)
    total_bytes: int = 0  # every file under the site's folder
    downloads: list[str] = field(default_factory=list)  # files linked that are not pages (checked, not opened)
    external_links: int = 0  # links off the site (not followed, not checked: the crawl is offline)
    redirects: dict[str, str] = field(default_factory=dict)  # page: where its <meta http-equiv=refresh> sends

    def serious_axe(self) -> list[Violation]:
        return [v for v in self.axe if v.impact in ("serious", "critical")]

    def problems(self) -> list[str]:
        """One line per problem a reader would meet."""
        lines = [f"{page}: broken link {href} ({reason})" for page, href, reason in self.broken_links]
        lines += [f"{page}: link {href} names no element of its page" for page, href in self.missing_anchors]
        lines += [f"{page}: console error: {text}" for page, text in self.console_errors]
        lines += [f"{page}: uncaught error: {text}" for page, text in self.page_errors]
        lines += [f"request left the site: {url}" for url in self.left_site]
        lines += [f"{page}: {url} failed ({why})" for page, url, why in self.failed_responses]
        lines += [f"{page}: raw math {text!r}" for page, text in self.untypeset_math]
        lines += [f"{page}: image {src} did not load" for page, src in self.empty_images]
        lines += [f"{v.page}: axe {v.rule} ({v.impact}) on {v.nodes} element(s), first {v.target}"
                  for v in self.serious_axe()]
        if self.search_results == 0:
            lines.append(f"search for {self.search_word!r} found nothing")
        return lines

    def summary(self) -> dict:
        by_impact = Counter(v.impact for v in self.axe)
        name, weight = self.largest_page
        return {
            "pages": len(self.pages),
            "links checked": self.links_checked,
            "broken links": len(self.broken_links),
            "missing anchors": len(self.missing_anchors),
            "console errors": len(self.console_errors) + len(self.page_errors),
            "requests that left the site": len(self.left_site),
            "axe violations": {impact: by_impact[impact] for impact in IMPACTS if by_impact[impact]}
                              if self.axe_run else None,
            "search results": self.search_results,
            "largest page": f"{name} ({weight / 1024:.0f} KiB)",
            "total size": f"{self.total_bytes / 1024 ** 2:.1f} MiB",
        }


# --- crawling --------------------------------------------------------------------------------

def check_url(url: str) -> tuple[int | str, str, str]:
    """Ask the local server for ``url`` (HEAD, then GET where HEAD is refused): its status (or the
    failure), its final URL after redirects and its content type."""
    for method in ("HEAD", "GET"):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=30) as answer:
                return answer.status, answer.geturl(), answer.headers.get_content_type()
        except urllib.error.HTTPError as error:
            if error.code in (405, 501) and method == "HEAD":
                continue
            return error.code, url, ""
        except (urllib.error.URLError, OSError) as error:
            return str(getattr(error, "reason", error)), url, ""
    return "no answer", url, ""


def search_word(text: str) -> str | None:
    """A word of the text that Sphinx's search should find: the most frequent word of six letters or
    more (five, else four), not a stop word."""
    for length in (6, 5, 4):
        words = [w.lower() for w in re.findall(rf"\b[A-Za-z]{{{length},}}\b", text)]
        words = [w for w in words if w not in STOP_WORDS]
        if words:
            return Counter(words).most_common(1)[0][0]
    return None


def crawl(html_dir: str | Path, prefix: str = "/rankscale/", start: str = "index.html", axe: bool = True,
          shots: str | Path | None = None, timeout_ms: int = 30_000) -> Report:
    """Crawl the site in ``html_dir`` served under ``prefix``, from ``start``, in headless Chromium
    with every request outside the site aborted. ``shots``: a folder for a screenshot of each page."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir)
    report = Report(total_bytes=sum(p.stat().st_size for p in html_dir.rglob("*") if p.is_file()), axe_run=axe)
    if shots is not None:
        shots = Path(shots)
        shots.mkdir(parents=True, exist_ok=True)
    httpd, base = serve_under(html_dir, prefix)
    report.base = base
    origin = base[: base.index("/", len("http://"))]
    current = {"page": "(start)"}
    loaded = []  # responses of the current page's load
    left = []

    def name_of(url: str) -> str:
        return url[len(base):] if url.startswith(base) else url

    def only_the_site(route):
        if route.request.url.startswith(base):
            route.continue_()
        else:  # the network is cut: record anything that leaves the site
            left.append(route.request.url)
            route.abort()

    def on_response(response):
        loaded.append(response)
        if response.status >= 400 and not current.get("axe"):
            report.failed_responses.append((current["page"], name_of(response.url), str(response.status)))

    def on_failed(request):
        if request.url.startswith(base) and not current.get("axe"):  # not one of ours aborted above
            report.failed_responses.append((current["page"], name_of(request.url), request.failure or "failed"))

    def on_console(message):
        if message.type == "error" and not message.text.startswith(FAILED_LOAD):
            report.console_errors.append((current["page"], message.text))

    def on_page_error(error):
        report.page_errors.append((current["page"], f"{error.name}: {error.message}" if error.name else error.message))

    checked = {}  # URL without fragment: (status, final URL, content type)
    seen_pages = set()
    queue = deque()
    anchors = []  # (page, href, target page URL, fragment)
    ids = {}  # page URL: its ids
    linked = set()

    def follow(page_name: str, href: str, url: str) -> None:
        """Check one link of ``page_name`` (``url``: as the browser resolved it)."""
        if href.strip().lower().startswith(SKIPPED_SCHEMES):
            return
        if not url:
            report.broken_links.append((page_name, href, "not a URL"))
            return
        if not url.startswith(origin + "/"):  # another site: not followed
            report.external_links += 1
            return
        if (page_name, url) in linked:
            return
        linked.add((page_name, url))
        report.links_checked += 1
        target, _, fragment = url.partition("#")
        if target not in checked:
            checked[target] = check_url(target)
        status, final, kind = checked[target]
        if not isinstance(status, int) or status >= 400:
            reason = f"HTTP {status}" if isinstance(status, int) else str(status)
            if not target.startswith(base):
                reason += f", outside {normal_prefix(prefix)}: an absolute path?"
            report.broken_links.append((page_name, href, reason))
            return
        final = final.partition("#")[0]
        if final.endswith("/"):  # a folder's page: one page with its index.html
            final += "index.html"
        if kind not in HTML_TYPES:  # a download: checked, not opened
            if name_of(final) not in report.downloads:
                report.downloads.append(name_of(final))
            return
        if final.startswith(base) and final not in seen_pages:
            seen_pages.add(final)
            queue.append(final)
        if fragment and fragment.lower() != "top":
            anchors.append((page_name, href, final, urllib.parse.unquote(fragment)))

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.set_default_timeout(timeout_ms)
            context.route("**/*", only_the_site)  # routing also turns the cache off: each page weighs all it loads
            page = context.new_page()
            page.on("response", on_response)
            page.on("requestfailed", on_failed)
            page.on("console", on_console)
            page.on("pageerror", on_page_error)

            def open_page(url: str, name: str) -> bool:
                current["page"] = name
                loaded.clear()
                left.clear()
                try:
                    response = page.goto(url, wait_until="load")
                except PlaywrightError as error:
                    report.broken_links.append((name, url, f"does not load: {error.message.splitlines()[0]}"))
                    return False
                if response is None or response.status >= 400:
                    return False
                try:
                    page.wait_for_function(MATHJAX_READY, timeout=15_000)
                    page.evaluate(MATHJAX_DONE)
                except PlaywrightError as error:
                    report.page_errors.append((name, f"MathJax did not finish: {error.message.splitlines()[0]}"))
                try:
                    page.wait_for_load_state("networkidle", timeout=5_000)  # fonts and lazy parts
                except PlaywrightError:
                    pass
                return True

            def weigh(name: str) -> None:
                total = 0
                for response in list(loaded):
                    size = response.headers.get("content-length")
                    if size is None:
                        try:
                            size = len(response.body())
                        except PlaywrightError:
                            size = 0
                    total += int(size)
                report.weights[name] = total

            start_url = urllib.parse.urljoin(base, start)
            follow("(start)", start, start_url)
            while queue:
                url = queue.popleft()
                name = name_of(url)
                with urllib.request.urlopen(url, timeout=30) as answer:
                    refresh = META_REFRESH.search(answer.read(4096).decode("utf-8", "replace"))
                if refresh:
                    report.redirects[name] = refresh.group(1)
                    follow(name, refresh.group(1), urllib.parse.urljoin(url, refresh.group(1)))
                    continue
                if not open_page(url, name):
                    continue
                moved = page.url.partition("#")[0]
                if moved != url:  # a script sent the reader on
                    report.redirects[name] = name_of(moved)
                    follow(name, moved, moved)
                    continue
                report.pages.append(name)
                weigh(name)
                report.left_site += [u for u in left if u not in report.left_site]
                report.empty_images += [(name, src) for src in page.evaluate(EMPTY_IMAGES)]
                report.untypeset_math += [(name, m) for m in RAW_MATH.findall(page.evaluate(PROSE))]
                ids[url] = set(page.evaluate(IDS))
                if len(report.pages) == 1:  # the start page
                    report.search_word = search_word(page.evaluate(MAIN_TEXT))
                if axe:
                    # axe fetches the stylesheets again to read them, resolving an @import against the page
                    # rather than the stylesheet (theme.css's "../basic.css"): its requests are not the page's
                    current["axe"] = True
                    report.axe += run_axe(page, name)
                    current["axe"] = False
                if shots is not None:
                    shot = name.rstrip("/").removesuffix(".html").replace("/", "__") or "index"
                    page.screenshot(path=str(shots / f"{shot}.png"))
                for href, resolved in page.evaluate(LINKS):
                    follow(name, href, resolved)

            if (html_dir / "search.html").is_file() and report.search_word:
                query = "search.html?q=" + urllib.parse.quote(report.search_word)
                if open_page(base + query, query):
                    report.left_site += [u for u in left if u not in report.left_site]
                    try:
                        page.wait_for_function(SEARCH_DONE, timeout=15_000)
                    except PlaywrightError:
                        pass
                    report.search_results = page.evaluate(SEARCH_COUNT)
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()

    for page_name, href, target, fragment in anchors:
        if target in ids and fragment not in ids[target]:
            report.missing_anchors.append((page_name, href))
    if report.weights:
        report.largest_page = max(report.weights.items(), key=lambda item: item[1])
    return report


def run_axe(page, name: str) -> list[Violation]:
    """axe-core's violations on the open page (axe-playwright-python injects its bundled axe.min.js)."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [Violation(rule=v["id"], impact=v.get("impact") or "minor", nodes=len(v["nodes"]), page=name,
                      target=" ".join(map(str, v["nodes"][0]["target"])) if v["nodes"] else "", help=v.get("help", ""))
            for v in violations]


# --- the command line ------------------------------------------------------------------------

def table(summary: dict) -> str:
    rows = [(key, ", ".join(f"{n} {k}" for k, n in value.items()) or "none" if isinstance(value, dict) else
             "not checked" if value is None else str(value)) for key, value in summary.items()]
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html_dir", type=Path, help="the built site, e.g. _build/html")
    parser.add_argument("--prefix", default="/rankscale/", help="the sub-path it is served under (default: /rankscale/)")
    parser.add_argument("--start", default="index.html", help="the first page (default: index.html)")
    parser.add_argument("--json", type=Path, help="write the whole report here")
    parser.add_argument("--no-axe", action="store_true", help="leave out the accessibility check")
    parser.add_argument("--shots", type=Path, help="a folder for a screenshot of each page")
    args = parser.parse_args(argv)
    if not args.html_dir.is_dir():
        parser.error(f"{args.html_dir} is not a folder (build the site first: make book)")
    report = crawl(args.html_dir, prefix=args.prefix, start=args.start, axe=not args.no_axe, shots=args.shots)
    summary = report.summary()
    print(table(summary))
    for violation in report.axe:
        if violation.impact not in ("serious", "critical"):
            print(f"  {violation.page}: axe {violation.rule} ({violation.impact}) on {violation.nodes} element(s), "
                  f"first {violation.target}")
    problems = report.problems()
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "problems": problems, **asdict(report)}, indent=1))
    if problems:
        print(f"\n{len(problems)} problem(s):")
        print("\n".join(f"  {line}" for line in problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
