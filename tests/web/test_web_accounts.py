"""Accounts over real HTTP on a real ``referee web`` process, on SQLite and PostgreSQL:
sign up, log in, log out, the CSRF field of every form, the login rate limit, the forms
shown again on bad input, and the password kept only as its argon2id hash. One server per
database for the module: each test has accounts of its own names."""

from __future__ import annotations

import html
import re

import httpx
import sqlalchemy as sa
from web_servers import WebServer, csrf_of

from referee.web.database import engine_for

PASSWORD = "correct-horse-battery"


def logged_in_as(client: httpx.Client) -> str | None:
    """The name the site's navigation shows for ``client``, or None when logged out."""
    found = re.search(r'<span class="who">([^<(]+)', client.get("/").text)
    return found.group(1).strip() if found else None


def test_the_front_page_links_to_sign_up_log_in_and_the_lobby(web_site: WebServer) -> None:
    page = httpx.get(web_site.url + "/")
    assert page.status_code == 200
    for link in ('href="/signup"', 'href="/login"', 'href="/lobby"'):
        assert link in page.text


def test_sign_up_log_out_and_log_in_again(web_site: WebServer) -> None:
    alice = web_site.signed_up("Alice", PASSWORD)
    assert logged_in_as(alice) == "Alice"
    answer = alice.post("/logout", data={"csrf_token": csrf_of(alice.get("/").text)})
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    assert logged_in_as(alice) is None
    again = web_site.logged_in("alice", PASSWORD)  # the name in any case
    assert logged_in_as(again) == "Alice"


def test_a_wrong_password_shows_the_form_again(web_site: WebServer) -> None:
    web_site.signed_up("bob", PASSWORD)
    client = web_site.client()
    answer = client.post("/login", data={"csrf_token": csrf_of(client.get("/login").text),
                                         "name": "bob", "password": "not-his-password"})
    assert answer.status_code == 400
    assert "do not match an account" in answer.text and 'value="bob"' in answer.text
    assert logged_in_as(client) is None


def test_every_form_carries_the_csrf_field_and_a_post_without_it_is_refused(
        web_site: WebServer) -> None:
    client = web_site.client()
    for path in ("/signup", "/login"):
        assert re.search(r'<input type="hidden" name="csrf_token" value="[^"]{20,}">',
                         client.get(path).text), path
    web_site.signed_up("carol", PASSWORD)
    missing = client.post("/login", data={"name": "carol", "password": PASSWORD})
    assert missing.status_code == 403
    assert "no security token (csrf_token)" in missing.text
    other = web_site.client()
    foreign = csrf_of(other.get("/login").text)  # another session's token
    wrong = client.post("/login", data={"csrf_token": foreign, "name": "carol",
                                        "password": PASSWORD})
    assert wrong.status_code == 403 and "is not this session" in wrong.text
    assert logged_in_as(client) is None
    header = client.post("/logout", headers={"X-CSRF-Token": foreign})
    assert header.status_code == 403
    meta = re.search(r'<meta name="csrf-token" content="([^"]+)">', client.get("/").text)
    assert meta  # what a page's fetch() sends
    right = client.post("/logout", headers={"X-CSRF-Token": meta.group(1)})
    assert right.status_code == 303


def test_the_login_rate_limit_refuses_a_name_after_ten_failures(
        web_site: WebServer) -> None:
    web_site.signed_up("dave", PASSWORD)
    web_site.signed_up("erin", PASSWORD)
    client = web_site.client()
    token = csrf_of(client.get("/login").text)
    for _ in range(10):
        answer = client.post("/login", data={"csrf_token": token, "name": "dave",
                                             "password": "a-guess-or-so"})
        assert answer.status_code == 400
    for password in ("another-guess", PASSWORD):  # the right password too, for now
        refused = client.post("/login", data={"csrf_token": token, "name": "DAVE",
                                              "password": password})
        assert refused.status_code == 429
        assert 0 < int(refused.headers["Retry-After"]) <= 300
        assert "Too many failed log-ins" in refused.text
    assert logged_in_as(client) is None
    assert logged_in_as(web_site.logged_in("erin", PASSWORD)) == "erin"


def test_bad_sign_up_input_shows_the_form_again_with_why(web_site: WebServer) -> None:
    web_site.signed_up("frank", PASSWORD)
    client = web_site.client()
    token = csrf_of(client.get("/signup").text)
    cases = [({"name": "x", "password": PASSWORD, "password2": PASSWORD}, "2 to 40"),
             ({"name": "bad name!", "password": PASSWORD, "password2": PASSWORD}, "2 to 40"),
             ({"name": "gina", "password": "short", "password2": "short"}, "at least 8"),
             ({"name": "gina", "password": PASSWORD, "password2": PASSWORD + "x"},
              "passwords differ"),
             ({"name": "FRANK", "password": PASSWORD, "password2": PASSWORD}, "is taken"),
             ({"name": "guest-1234", "password": PASSWORD, "password2": PASSWORD},
              "the guests"),
             ({"name": "gina", "password": "p" * 1025, "password2": "p" * 1025}, "at most"),
             ({}, "2 to 40")]
    for form, why in cases:
        answer = client.post("/signup", data={"csrf_token": token, **form})
        assert answer.status_code == 400, form
        assert why in answer.text, (form, answer.text[:2000])
        assert 'name="csrf_token"' in answer.text and "Traceback" not in answer.text
    assert logged_in_as(client) is None


def test_a_huge_form_is_refused(web_site: WebServer) -> None:
    client = web_site.client()
    token = csrf_of(client.get("/signup").text)
    answer = client.post("/signup", data={"csrf_token": token, "name": "hugo",
                                          "password": "p" * 2_000_000})
    assert answer.status_code == 413
    assert web_site.process is not None and web_site.process.poll() is None


def test_the_password_is_kept_only_as_its_argon2id_hash(web_site: WebServer) -> None:
    secret = "Unmistakable-Passphrase-4711"
    web_site.signed_up("ivan", secret)
    web_site.logged_in("ivan", secret)
    client = web_site.client()
    client.post("/login", data={"csrf_token": csrf_of(client.get("/login").text),
                                "name": "ivan", "password": secret + "?"})
    assert secret not in web_site.log()
    engine = engine_for(web_site.db_url or
                        f"sqlite:///{web_site.data / 'web.sqlite'}")
    with engine.connect() as connection:
        stored = connection.execute(sa.text(
            "SELECT password_hash FROM users WHERE name = 'ivan'")).scalar_one()
        every = " ".join(str(row) for row in connection.execute(sa.text("SELECT * FROM users")))
    engine.dispose()
    assert stored.startswith("$argon2id$") and secret not in every
    if web_site.db_url is None:
        for path in web_site.data.glob("web.sqlite*"):
            assert secret.encode() not in path.read_bytes(), path


def test_next_after_log_in_goes_only_to_a_path_of_the_site(web_site: WebServer) -> None:
    web_site.signed_up("judy", PASSWORD)
    for target, landing in (("/tables/abc?x=1", "/tables/abc?x=1"), ("//evil.example/",
                            "/lobby"), ("https://evil.example/", "/lobby"),
                            ("/\\evil.example", "/lobby")):
        client = web_site.client()
        page = client.get("/login", params={"next": target}).text
        hidden = re.search(r'name="next" value="([^"]*)"', page)
        assert hidden
        answer = client.post("/login", data={"csrf_token": csrf_of(page), "name": "judy",
                                             "password": PASSWORD,
                                             "next": html.unescape(hidden.group(1))})
        assert answer.status_code == 303
        assert answer.headers["location"] == landing, target
    client = web_site.client()  # a next given to the form itself is checked as well
    answer = client.post("/login", data={"csrf_token": csrf_of(client.get("/login").text),
                                         "name": "judy", "password": PASSWORD,
                                         "next": "//evil.example/"})
    assert answer.headers["location"] == "/lobby"


def test_unknown_pages_and_methods_have_pages_in_the_site_layout(
        web_site: WebServer) -> None:
    missing = httpx.get(web_site.url + "/no/such/page")
    assert missing.status_code == 404
    assert "There is no page at this address" in missing.text
    assert 'href="/lobby"' in missing.text and "Traceback" not in missing.text
    wrong = httpx.get(web_site.url + "/logout")
    assert wrong.status_code == 405 and "Method Not Allowed" in wrong.text


def test_every_answer_carries_the_security_headers(web_site: WebServer) -> None:
    answer = httpx.get(web_site.url + "/login")
    assert answer.headers["content-security-policy"].startswith("default-src 'self'")
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-content-type-options"] == "nosniff"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    css = httpx.get(web_site.url + "/static/site.css")
    assert css.status_code == 200 and "text/css" in css.headers["content-type"]
