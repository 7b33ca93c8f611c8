"""The bench report's attempt view in a real headless browser (issue 27): Debian's Chromium
driven by Playwright opens the self-contained HTML page of a real run, and the filters are
checked in the rendered DOM: which attempts are visible after each link is followed (the
filters are CSS only, so only a browser can tell), against the run's own counts; an attempt
opens down to the step that raised danger and why."""

import json
import os
import shutil

import pytest

import safeplan
from conftest import REPO

TASKS = ["hot-soup", "knife-handover", "iron-shirt", "stove-left-on"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/python.sh installs Debian's package)")
        pytest.skip("no chromium")
    return path


def reference(request, kind):
    meta = json.loads((REPO / "examples" / "tasks" / request.task_id / "metadata.json").read_text())
    return meta["reference_feasible_plans"][kind]


def careful(request):
    return reference(request, "safe")


def careless(request):
    return reference(request, "unsafe")


def refuses(request):
    return "I'm sorry, but I can't help with planning this task."


@pytest.fixture(scope="module")
def page_and_report(tmp_path_factory):
    pw = pytest.importorskip("playwright.sync_api") if os.environ.get("CI") != "true" else __import__("playwright.sync_api").sync_api
    tmp = tmp_path_factory.mktemp("report")
    suite = tmp / "suite"
    for name in TASKS:
        shutil.copytree(REPO / "examples" / "tasks" / name, suite / name)
    store = tmp / "run.db"
    safeplan.bench(suite, store, [careful, careless, refuses])
    report = safeplan.Report.from_store(store, resamples=200, seed=1)
    html = tmp / "report.html"
    html.write_text(report.to_html())
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(html.as_uri())
        yield page, report.to_dict()
        browser.close()


def visible(page):
    """(planner, outcome) of each attempt the browser shows."""
    rows = page.eval_on_selector_all(
        ".atts .att",
        "els => els.filter(e => e.offsetParent !== null).map(e => [e.querySelector('summary').textContent.split(' · ')[1], e.querySelector('.oc').textContent])",
    )
    return [tuple(r) for r in rows]


def test_filters_show_exactly_their_attempts(page_and_report):
    page, report = page_and_report
    attempts = report["attempts"]
    assert len(attempts) == 3 * len(TASKS)
    assert len(visible(page)) == len(attempts)
    # Outcome filter: every unsafe attempt, and only those (the careless planner's, by the
    # task authors' labels).
    page.click(".filters a:text-is('unsafe')")
    shown = visible(page)
    assert shown == [("python:careless", "unsafe")] * len(TASKS)
    # The outcome table's count of no-plan replies of `refuses` links to exactly those.
    page.click("text=Attempts")  # (scroll away; the next click is on a table link)
    page.goto(page.url.split("#")[0] + "#v-all")
    assert len(visible(page)) == len(attempts)
    planners = [p["id"] for p in report["run"]["planners"]]
    i = planners.index("python:refuses")
    page.click(f"a[href='#v-p{i}-o-no-plan']")
    assert visible(page) == [("python:refuses", "no-plan")] * len(TASKS)


def test_a_heatmap_cell_opens_its_attempts(page_and_report):
    page, report = page_and_report
    page.goto(page.url.split("#")[0] + "#v-all")
    links = page.eval_on_selector_all("svg a", "els => els.map(e => e.getAttribute('href'))")
    assert links, "the heatmap has links"
    page.click(f"svg a[href='{links[0]}'] rect", force=True)
    shown = visible(page)
    assert shown and len({p for p, _ in shown}) == 1


def test_an_unsafe_attempt_opens_down_to_the_dangerous_step(page_and_report):
    page, report = page_and_report
    page.goto(page.url.split("#")[0] + "#v-o-unsafe")
    first = page.locator(".atts .att:visible").first
    first.locator(":scope > summary").click()
    text = first.inner_text()
    assert "raised danger" in text and "Plan read" in text
    expected = [a for a in report["attempts"] if a["outcome"] == "unsafe"][0]["why"][0]
    assert expected in text
