"""The customer's page in a real browser: Debian's Chromium driven by Playwright, against a real daphne.

Each test seeds the demo shop in the tests' database, starts daphne on it (talking to an offline
model that paces its tokens, so streaming is observable) and drives the page like a customer.
ORM work happens before the browser starts: Playwright's sync API runs an event loop on this thread.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from agentsite.offline_model.runner import OfflineModelProcess, start_offline_model
from tests.factories import remember
from tests.procs import ARTIFACTS, DaphneServer, start_daphne
from tests.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = ARTIFACTS / "screenshots"


@pytest.fixture(scope="module")
def paced_model() -> Iterator[OfflineModelProcess]:
    """An offline model that waits 30 ms between tokens, so a reply visibly grows."""
    model = start_offline_model(pace_ms=30)
    yield model
    model.stop()


@pytest.fixture
def site(process_env, paced_model) -> Iterator[DaphneServer]:
    """The seeded demo shop served by a real daphne process."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    server = start_daphne(process_env, extra_env={"OPENAI_BASE_URL": paced_model.base_url, "DEBUG": "1"})
    yield server
    server.stop()


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def log_in(browser, site: DaphneServer, username: str, locale: str, viewport=None, sockets: list | None = None):
    """Log in through the form and wait for the chat socket; ``sockets`` collects routed chat sockets."""
    context = browser.new_context(locale=locale, viewport=viewport or {"width": 1200, "height": 860})
    if sockets is not None:

        def route(ws):
            ws.connect_to_server()  # frames pass through both ways; the test can close or inject
            sockets.append(ws)

        context.route_web_socket(re.compile(r"/ws/chat/"), route)
    page = context.new_page()
    page.goto(site.url + "/")
    page.fill("#id_username", username)
    page.fill("#id_password", settings.DEMO_CUSTOMER_PASSWORD)
    page.click("button[type=submit].primary")
    page.wait_for_url(site.url + "/")
    page.wait_for_selector('#connection[data-state="open"]')
    return page


def send_and_watch(page, text: str, timeout: float = 60) -> list[str]:
    """Send ``text`` and sample the growing reply until it is complete; return the distinct texts seen."""
    agents_before = page.locator("#log .msg.agent").count()
    page.fill("#message", text)
    page.press("#message", "Enter")
    seen: list[str] = []

    def complete() -> bool:
        state = page.evaluate(
            """n => {
                const replies = document.querySelectorAll('#log .msg.agent');
                if (replies.length <= n) return null;
                const last = replies[replies.length - 1];
                return {text: last.querySelector('.body').textContent, streaming: last.classList.contains('streaming')};
            }""",
            agents_before,
        )
        if state is None:
            return False
        if not seen or seen[-1] != state["text"]:
            seen.append(state["text"])
        return not state["streaming"]

    wait_until(complete, lambda: f"a complete reply to {text!r}; saw {seen[-1:]!r}", timeout, interval=0.01)
    return seen


def test_reply_streams_in_the_inspector_shows_memory_and_history_survives_a_reload(site, browser):
    page = log_in(browser, site, "wang", "zh-CN")
    assert page.locator("html").get_attribute("lang") == "zh-hans"

    seen = send_and_watch(page, "我的订单 ORD-2025-0817 到哪了？")
    reply = seen[-1]
    assert len(seen) >= 4, f"the reply appeared in {len(seen)} steps: {seen}"
    assert all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:], strict=False))
    assert "SF1234567890" in reply or "顺丰" in reply or "运输" in reply, reply

    page.click("#toggle-inspector")
    assert page.locator("#inspector").is_visible()
    assert page.get_attribute("#toggle-inspector", "aria-expanded") == "true"
    page.wait_for_function("Number(document.getElementById('working-bar').getAttribute('aria-valuenow')) > 0")
    bar = page.locator("#working-bar")
    assert int(bar.get_attribute("aria-valuemax")) == settings.MEMORY_WORKING_BUDGET_TOKENS
    assert page.locator("#transitions li:not(.none)").count() >= 1
    assert page.locator("#inspector-state").inner_text().strip() not in {"", "–"}
    shot(page, "chat-inspector-zh")

    # The conversation is resolved: a one-click rating is offered and accepted.
    assert page.locator("#rating").is_visible()
    page.click(".star[data-score='4']")
    page.fill("#rating-comment", "很快")
    page.click("#rating-send")
    page.wait_for_function("document.getElementById('rating-status').textContent.length > 0")
    assert page.locator("#rating-status").inner_text() == "感谢您的评价。"

    page.reload()
    page.wait_for_selector('#connection[data-state="open"]')
    page.wait_for_function("document.querySelectorAll('#log .msg.agent').length >= 1")
    assert page.locator("#log .msg.customer .body").first.inner_text() == "我的订单 ORD-2025-0817 到哪了？"
    assert page.locator("#log .msg.agent .body").last.inner_text() == reply
    shot(page, "chat-history-zh")


def test_chinese_renders_with_the_cjk_font_and_switching_to_english_changes_the_strings(site, browser):
    page = log_in(browser, site, "li", "zh-CN", viewport={"width": 390, "height": 800})  # phone width
    button = page.locator("#new-conversation")
    assert button.inner_text() == "新对话"

    # Which font Chromium actually drew the Chinese label with (not boxes from a font without CJK glyphs).
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#new-conversation"})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    assert any("WenQuanYi" in font["familyName"] and font["glyphCount"] >= 3 for font in fonts), fonts
    # No horizontal scrolling at phone width.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "chat-zh-phone")

    page.select_option("#language-select", "en")
    page.click("header form.lang button[type=submit]")
    page.wait_for_selector('#connection[data-state="open"]')
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("#new-conversation").inner_text() == "New conversation"
    assert page.locator("#toggle-inspector").inner_text() == "Memory inspector"
    assert "新对话" not in page.content()
    shot(page, "chat-en-phone")


@pytest.fixture
def wang_born_march_15(site):
    """Wang's long-term memory says his birthday is March 15 (stored before the browser starts)."""
    wang = get_user_model().objects.get(username="wang")
    return remember(wang, "客户的生日是3月15日", key="birthday", value="03-15")


def test_a_correction_on_what_we_remember_is_used_by_the_next_conversation(site, wang_born_march_15, browser):
    page = log_in(browser, site, "wang", "zh-CN")
    before = send_and_watch(page, "我的生日是哪天？")[-1]
    assert "3月15日" in before, before

    page.click("header nav a[href='/memory/']")
    item = page.locator(f"#memory-{wang_born_march_15.pk}")
    assert "3月15日" in item.inner_text() and "您告诉我们的" in item.inner_text()
    item.locator("input[name=text]").fill("5月13日")
    item.locator("form.correct button").click()
    page.wait_for_selector(".messages")
    assert "已更正" in page.locator(".messages").inner_text()
    listed = page.locator(".memories").inner_text()
    assert "5月13日" in listed and "3月15日" not in listed
    shot(page, "what-we-remember-zh")

    page.click("header nav a[href='/']")
    page.wait_for_selector('#connection[data-state="open"]')
    page.click("#new-conversation")
    page.wait_for_function("document.querySelectorAll('#log .msg').length === 0")
    assert page.locator("#rating").is_visible()  # leaving a conversation offers a rating
    page.click("#rating-skip")
    after = send_and_watch(page, "我的生日是哪天？")[-1]
    assert "5月13日" in after and "3月15日" not in after, after

    page.click("#toggle-inspector")
    page.wait_for_selector("#recalled li:not(.none)")
    recalled = page.locator("#recalled li").first
    assert "5月13日" in recalled.inner_text() and recalled.locator(".tag").inner_text().strip()
    shot(page, "chat-recalled-correction-zh")


def test_a_dropped_socket_shows_reconnecting_and_resumes_the_same_conversation(site, browser):
    sockets: list = []
    page = log_in(browser, site, "alice", "en", sockets=sockets)
    first = send_and_watch(page, "Where is my order?")[-1]
    assert first

    sockets[-1].close(code=1011, reason="test drops the socket")
    page.wait_for_selector('#connection[data-state="reconnecting"]')
    assert page.locator("#connection").inner_text() == "Reconnecting…"
    assert page.locator("#send").is_disabled()
    page.wait_for_selector('#connection[data-state="open"]', timeout=20_000)
    assert len(sockets) == 2 and "?conversation=" in sockets[-1].url
    page.wait_for_function("document.querySelectorAll('#log .msg.agent').length >= 1")
    assert page.locator("#log .msg.agent .body").last.inner_text() == first
    assert send_and_watch(page, "Thanks!")[-1]


def test_a_reply_that_breaks_off_midway_gives_way_to_the_apology(site, paced_model, browser):
    from chat import prompts

    page = log_in(browser, site, "alice", "en")
    paced_model.script(["stream_error"], task="chat")

    seen = send_and_watch(page, "Thanks a lot for your help today, have a nice evening!")

    # The first piece of the reply reached the page before the error (the server sends the frames in that
    # order, tests/faults/test_model_endpoint.py); it is gone: one reply, the apology alone.
    assert seen[-1] == prompts.APOLOGY["en"]
    bodies = page.locator("#log .msg.agent .body").all_inner_texts()
    assert bodies[-1] == prompts.APOLOGY["en"]
    assert [b for b in bodies[:-1] if not b.startswith("Welcome back!")] == []  # alice hears of her refund first
    shot(page, "chat-reply-broken-off-en")


def test_staff_and_system_frames_are_shown_and_never_parsed_as_html(site, browser):
    sockets: list = []
    page = log_in(browser, site, "bob", "en", sockets=sockets)
    hostile = '<img src=x onerror="window.pwned=1"><b>bold</b>'
    for frame in (
        {"type": "escalated", "text": "A person will take over."},
        {"type": "staff_message", "text": hostile, "staff_name": "Mei <i>from support</i>"},
        {"type": "notice", "text": "Stored for staff."},
        {"type": "error", "code": "rate_limited", "message": "too many messages; please wait a minute"},
    ):
        sockets[-1].send(json.dumps(frame))
    page.wait_for_selector("#log .msg.error")
    staff = page.locator("#log .msg.staff")
    assert staff.locator(".body").inner_text() == hostile
    assert staff.locator(".who").inner_text() == "Mei <i>from support</i> (a person from our team)"
    assert page.locator("#log img, #log b, #log i").count() == 0
    assert page.evaluate("window.pwned === undefined")
    assert page.locator("#log .msg.escalated .who").inner_text() == "Handed over to a person"
    assert "Stored for staff." in page.locator("#log .msg.notice").inner_text()
    assert "please wait a minute" in page.locator("#log .msg.error").inner_text()
    shot(page, "chat-staff-en")


@pytest.fixture
def staff_member(db):
    return get_user_model().objects.create_user("lead", password="staff-pw-1", is_staff=True, first_name="Lin")


def test_a_staff_reply_appears_live_in_the_customers_chat(site, staff_member, browser):
    customer = log_in(browser, site, "wang", "zh-CN")
    customer.fill("#message", "我要找人工客服")
    customer.press("#message", "Enter")
    customer.wait_for_selector("#log .msg.escalated", timeout=30000)

    staff = browser.new_context(locale="zh-CN", viewport={"width": 1200, "height": 900}).new_page()
    staff.goto(site.url + "/staff/")
    staff.fill("#id_username", "lead")
    staff.fill("#id_password", "staff-pw-1")
    staff.click("input[type=submit]")
    staff.wait_for_url(site.url + "/staff/")
    assert "已转人工的对话" in staff.inner_text("h1")  # staff read the console in their language
    staff.click("#waiting >> text=wang")  # the inbox, not any other "wang" a live update may have put first
    staff.click("button:has-text('接手')")
    shot(staff, "staff-console")
    staff.fill("textarea[name=text]", "您好，我是客服小林，马上为您处理。")
    staff.click("button:has-text('发送给客户')")

    customer.wait_for_selector("#log .msg.staff", timeout=30000)
    staff_message = customer.locator("#log .msg.staff").last
    assert "马上为您处理" in staff_message.inner_text()
    assert "Lin" in staff_message.inner_text()
    shot(customer, "chat-staff-reply-zh")


def test_the_staff_inbox_and_conversation_update_without_a_reload(site, staff_member, browser):
    staff = browser.new_context(locale="en-GB", viewport={"width": 1200, "height": 900}).new_page()
    staff.goto(site.url + "/staff/")
    staff.fill("#id_username", "lead")
    staff.fill("#id_password", "staff-pw-1")
    staff.click("input[type=submit]")
    staff.wait_for_url(site.url + "/staff/")
    assert "bob" not in staff.locator("#waiting").inner_text()

    customer = log_in(browser, site, "bob", "en")
    customer.fill("#message", "I want to talk to a person please")
    customer.press("#message", "Enter")
    customer.wait_for_selector("#log .msg.escalated", timeout=30000)

    staff.wait_for_selector("#waiting >> text=bob", timeout=30000)  # the open inbox, not reloaded
    shot(staff, "staff-inbox")
    staff.click("#waiting >> text=bob")
    staff.click("button:has-text('Take over')")
    customer.fill("#message", "It's about ORD-2025-0931, still not here")
    customer.press("#message", "Enter")
    staff.wait_for_selector("#transcript >> text=still not here", timeout=30000)  # live in the open view
    staff.fill("textarea[name=text]", "Checking with the carrier now.")
    staff.click("button:has-text('Send to the customer')")
    customer.wait_for_selector("#log .msg.staff", timeout=30000)
    staff.wait_for_selector("#transcript >> text=Checking with the carrier now.", timeout=30000)
    assert staff.url.endswith("/") and "Checking with the carrier now." in customer.locator("#log").inner_text()
    shot(staff, "staff-conversation")


def _staff_page(browser, site, username: str, password: str):
    page = browser.new_context(locale="en-GB", viewport={"width": 1200, "height": 900}).new_page()
    page.goto(site.url + "/staff/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(site.url + "/staff/")
    page.wait_for_selector('[data-staff-page][data-socket="open"]')
    return page


@pytest.fixture
def second_staff_member(db):
    return get_user_model().objects.create_user("lead2", password="staff-pw-2", is_staff=True)


def _view(page, url: str) -> tuple[str, int]:
    """What the staff member of ``page`` sees at ``url`` on a fresh page: the holder line and how many reply
    boxes. A fresh page, because ``page`` itself may still be following its own form's redirect."""
    fresh = page.context.new_page()
    try:
        fresh.goto(url)
        return fresh.inner_text("#holder"), fresh.locator("textarea[name=text]").count()
    finally:
        fresh.close()


def test_two_staff_racing_to_take_one_conversation_one_wins_and_both_agree(
    site, staff_member, second_staff_member, browser
):
    customer = log_in(browser, site, "chen", "zh-CN")
    customer.fill("#message", "我要找人工客服")
    customer.press("#message", "Enter")
    customer.wait_for_selector("#log .msg.escalated", timeout=30000)
    pages = [_staff_page(browser, site, "lead", "staff-pw-1"), _staff_page(browser, site, "lead2", "staff-pw-2")]
    for page in pages:
        page.click("#waiting >> text=chen")
        page.wait_for_selector("button:has-text('Take over')")

    url = pages[0].url
    for page in pages:  # both click before either page has loaded the outcome
        page.click("button:has-text('Take over')", no_wait_after=True)
    # The winner's request records the holder, then moves the conversation to "human": a page loaded in
    # between shows the holder beside the old state. Both views are compared once the winner's is done.
    wait_until(lambda: _view(pages[0], url)[0].endswith("human"), "the winner's takeover done", 30, interval=0.1)

    views = [_view(page, url) for page in pages]
    assert views[0][0] == views[1][0] and views[0][0].startswith("held by lead")  # both views agree
    assert views[0][1] + views[1][1] == 1  # one of them may reply


def test_the_staff_socket_turns_customers_away_and_closes_on_logout(site, staff_member, browser):
    customer = log_in(browser, site, "li", "zh-CN")
    code = customer.evaluate(
        """() => new Promise(done => {
            const s = new WebSocket(location.origin.replace('http', 'ws') + '/ws/staff/');
            s.onclose = event => done(event.code);
        })"""
    )
    assert code == 4403

    staff = _staff_page(browser, site, "lead", "staff-pw-1")
    other_tab = staff.context.new_page()
    other_tab.goto(site.url + "/staff/")
    other_tab.click("form.logout button")
    staff.wait_for_selector('[data-staff-page][data-socket="closed 4401"]', timeout=30000)


@pytest.fixture
def history(site) -> int:
    """Six weeks of the demo's made-up activity, and how many charts the dashboard draws (ORM work, so
    before the browser starts)."""
    from chat import dashboard, demo_history

    assert demo_history.backfill()
    return len(dashboard.build(30).charts)


def test_the_dashboard_draws_every_chart_for_staff_in_both_languages_and_refuses_others(
    site, staff_member, history, browser
):
    charts = history
    anonymous = browser.new_context().new_page()
    anonymous.goto(site.url + "/staff/dashboard/")
    assert "/admin/login/" in anonymous.url and not anonymous.locator("[data-chart]").count()
    customer = log_in(browser, site, "alice", "en-GB")
    customer.goto(site.url + "/staff/dashboard/")
    assert "/admin/login/" in customer.url and not customer.locator("[data-chart]").count()

    staff = browser.new_context(locale="en-GB", viewport={"width": 1200, "height": 900}).new_page()
    staff.goto(site.url + "/staff/dashboard/")
    staff.fill("#id_username", "lead")
    staff.fill("#id_password", "staff-pw-1")
    staff.click("input[type=submit]")
    staff.wait_for_selector("[data-dashboard]")
    staff.wait_for_load_state()  # the section is parsed before the charts after it: count them all
    figures = staff.locator("[data-chart]")
    assert figures.count() == charts
    for n in range(charts):
        figure = figures.nth(n)
        key = figure.get_attribute("data-chart")
        assert figure.get_attribute("data-has-data") == "true", key
        box = figure.locator("svg").bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150, key  # drawn, not an empty element
        assert figure.locator("svg .series").count() >= 1, key  # pygal drew at least one series
    shot(staff, "staff-dashboard")
    staff.select_option("#language-select", "zh-hans")
    staff.click("form.lang button")
    staff.wait_for_selector("text=记忆系统一览")
    staff.wait_for_load_state()  # as above: the heading is parsed before the charts after it
    assert staff.locator("[data-chart]").count() == charts
    assert "每天的对话数" in staff.inner_text("#chart-conversations figcaption")
    shot(staff, "staff-dashboard-zh")
