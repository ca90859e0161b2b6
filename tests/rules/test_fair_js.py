"""static/js/fair.js gives the same dice as rules/fair.py: run in Debian's Chromium (playwright),
on a page of a tiny local server with the site's strict Content-Security-Policy (no inline
script, no eval), served from http://127.0.0.1 with the vendored @noble/hashes modules fair.js
imports. (http://127.0.0.1 is a secure context; tests/room/test_views_fair_dice_browser.py
checks the dice on a page that is not one.)"""

import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rules import fair
from tests.browser import BROWSER, CHROMIUM, Chromium
from tests.rules.test_fair import (
    COMMITMENT,
    CONTRIBUTION,
    HUGE,
    HUGE_VECTORS,
    POSITION,
    SEED,
    VECTORS,
    doc_rolls,
)

pytestmark = BROWSER

STATIC = Path(__file__).resolve().parents[2] / "static"
#: What the page may load: fair.js and the modules it imports.
SCRIPTS = {
    "/static/js/fair.js": STATIC / "js" / "fair.js",
    **{
        f"/static/{path.relative_to(STATIC).as_posix()}": path
        for path in (STATIC / "vendor" / "noble-hashes").glob("*/*.js")
    },
}
CSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"
PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>fair.js</title>
<script src="/static/js/fair.js"></script></head><body></body></html>
"""


class Handler(BaseHTTPRequestHandler):
    """The page (``/``) and the scripts, all under the site's CSP; nothing else (no content for
    the icon the browser asks for: a 404 would be a console error)."""

    def do_GET(self):
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        if self.path == "/":
            body, kind = PAGE, "text/html; charset=utf-8"
        elif self.path in SCRIPTS:
            body, kind = SCRIPTS[self.path].read_bytes(), "text/javascript; charset=utf-8"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(scope="module")
def loaded(server):
    """The page with fair.js loaded, in a context of its own of the worker's Chromium
    (tests/browser.py: started on first use, stopped when the worker ends), and the errors its
    console reports."""
    if CHROMIUM is None:
        pytest.fail("CI=true and no chromium on the PATH (apt-get install chromium).")
    errors = []
    browser = Chromium.resume()
    try:
        context = browser.new_context()
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server)
        page.wait_for_function("() => window.RollroomFair !== undefined")
        assert page.evaluate("() => window.isSecureContext && !!crypto.subtle")
    finally:
        Chromium.pause()
    yield page, errors
    Chromium.resume()
    try:
        context.close()
    finally:
        Chromium.pause()


@pytest.fixture
def page(loaded):
    page, errors = loaded
    Chromium.resume()
    try:
        yield page
    finally:
        Chromium.pause()
    assert not errors, errors


RANDINT = """cases => Promise.all(cases.map(c => RollroomFair.randint(
    c.seed, c.contribution, c.position, c.n, BigInt(c.a), BigInt(c.b)).then(String)))"""


def js_draws(page, cases):
    """Each case's value from the page (ranges passed as BigInts, so any size goes)."""
    cases = [dict(case, a=str(case["a"]), b=str(case["b"])) for case in cases]
    return [int(value) for value in page.evaluate(RANDINT, cases)]


def test_commitment(page):
    assert page.evaluate("s => RollroomFair.commitment(s)", SEED) == COMMITMENT
    assert page.evaluate("s => RollroomFair.commitment(s)", SEED.upper()) == COMMITMENT


def test_vectors_with_numbers(page):
    """The documented vectors, asked with Numbers: Numbers come back."""
    got = page.evaluate(
        """([seed, contribution, position, ranges]) => Promise.all(ranges.map(([a, b]) =>
            Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(n =>
                RollroomFair.randint(seed, contribution, position, n, a, b)))))""",
        [SEED, CONTRIBUTION, POSITION, [list(key) for key in VECTORS]],
    )
    assert got == list(VECTORS.values())


def test_vectors_through_rejection(page):
    cases = [
        {
            "seed": SEED,
            "contribution": CONTRIBUTION,
            "position": POSITION,
            "n": n,
            "a": 0,
            "b": HUGE,
        }
        for n in HUGE_VECTORS
    ]
    assert js_draws(page, cases) == list(HUGE_VECTORS.values())


def random_cases(count):
    """``count`` cases from a fixed sequence: any seed, a contribution of any length and case,
    positions and draw numbers, ranges from one face to 2**64 (where words are often rejected)."""
    sequence = random.Random("fair.js against rules/fair.py")
    cases = []
    for i in range(count):
        length = sequence.randint(16, 64)
        contribution = "".join(sequence.choice("0123456789abcdefABCDEF") for _ in range(length))
        size = sequence.choice(
            [1, 2, 6, 10, 20, 100, 1000, sequence.randint(1, 2**32), HUGE + 1, 2**64]
            + [sequence.randint(1, 2**64)] * 2
        )
        a = sequence.randint(-(2**70), 2**70) if i % 2 else sequence.randint(-10, 10)
        cases.append(
            {
                "seed": sequence.randbytes(32).hex(),
                "contribution": contribution,
                "position": sequence.choice([0, 1, sequence.randint(0, 10**9)]),
                "n": sequence.choice([0, 1, sequence.randint(0, 500)]),
                "a": a,
                "b": a + size - 1,
            }
        )
    return cases


def test_random_cases_agree_with_python(page):
    cases = random_cases(200)
    expected = [
        fair.derive(c["seed"], c["contribution"], c["position"], c["n"], c["a"], c["b"])
        for c in cases
    ]
    assert js_draws(page, cases) == expected


VERIFY = """([seed, contribution, position, draws]) =>
    RollroomFair.verifyDraws(seed, contribution, position, draws)"""


def test_verify_draws(page):
    dice = fair.FairDice(SEED, CONTRIBUTION, POSITION)
    for faces in [6, 10, 20, 100, 1000] * 4:
        dice.randint(1, faces)
    draws = [list(draw) for draw in dice.draws]
    assert page.evaluate(VERIFY, [SEED, CONTRIBUTION, POSITION, draws]) is None
    assert page.evaluate(VERIFY, [SEED.upper(), CONTRIBUTION.upper(), POSITION, draws]) is None
    assert page.evaluate(VERIFY, [SEED, CONTRIBUTION, POSITION, []]) is None
    for index in (0, 9, 19):
        a, b, value = draws[index]
        # a wider range that happens to give the same value would not be a change
        wider = next(
            [a, top, value]
            for top in range(b + 1, 2 * b)
            if fair.derive(SEED, CONTRIBUTION, POSITION, index, a, top) != value
        )
        for bad in [[a, b, value % b + 1], wider, [a, b], [a, b, "3"], None]:
            changed = draws[:index] + [bad] + draws[index + 1 :]
            assert page.evaluate(VERIFY, [SEED, CONTRIBUTION, POSITION, changed]) == index
    assert page.evaluate(VERIFY, [SEED, CONTRIBUTION, POSITION + 1, draws]) == 0
    other_seed = "ff" + SEED[2:]
    assert page.evaluate(VERIFY, [other_seed, CONTRIBUTION, POSITION, draws]) == 0


def test_bad_inputs_are_refused(page):
    refused = page.evaluate(
        """async (cases) => {
            const out = [];
            for (const args of cases) {
                try { await RollroomFair.randint(...args); out.push(null); }
                catch (error) { out.push(error.constructor.name); }
            }
            return out;
        }""",
        [
            ["00", CONTRIBUTION, 0, 0, 1, 6],
            [SEED, "abc", 0, 0, 1, 6],
            [SEED, CONTRIBUTION, -1, 0, 1, 6],
            [SEED, CONTRIBUTION, 0, 1.5, 1, 6],
            [SEED, CONTRIBUTION, 0, 0, 6, 1],
            [SEED, CONTRIBUTION, 0, 0, 1, 6],
        ],
    )
    assert refused == ["TypeError", "TypeError", "TypeError", "TypeError", "RangeError", None]


def test_the_docs_whole_rolls(page):
    """The draws of each whole roll of docs/fair-dice.md (a Pool shift, a free roll with a
    target, exploding dice counted...) verify in the page's script as in Python, and a changed
    one is found where it is."""
    for roll in doc_rolls():
        draws = [list(draw) for draw in roll["draws"]]
        asked = [SEED, CONTRIBUTION, roll["position"], draws]
        assert page.evaluate(VERIFY, asked) is None, roll["asked"]
        last = len(draws) - 1
        a, b, value = draws[last]
        changed = [*draws[:last], [a, b, value % b + 1]]
        assert page.evaluate(VERIFY, [SEED, CONTRIBUTION, roll["position"], changed]) == last
