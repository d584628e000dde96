"""Names, passwords and what the profile and the history say of a match (``docs/web-protocol.md``,
Who you are and HTTP; :mod:`gongzhu.server.names`, :mod:`gongzhu.server.identity`).

- A new account's name may not look like another account's: their UTS #39 confusable skeletons
  (after simplified characters, without combining marks, in any case) may not be one — ``Аӏісе``
  in Cyrillic, ``Alicé``, ``AIice``, ``ᴀʟɪᴄᴇ`` beside ``Alice``; ``BlLL`` and ``ВILL`` beside
  ``Bill`` (``BILL`` is the name ``Bill``); ``張三`` beside ``张三``, ``剣客`` beside ``剑客``.
- A name keeps to one script, or Latin with Chinese, Japanese or Korean (``kiκi`` is refused).
- Names that look like those of guests, computer players, the single-player server's person or
  the staff are kept back, in either script and with digits after them (``遊客``, ``電腦``,
  ``髙手``, ``C0mputer``, ``Сomputer``, ``Expert2``, ``AI1``, ``本機玩家``, ``Аdmin``, ``系統``), and
  so are names holding a staff word (``admin_team``, ``Moderators``, ``系统通知``);
  a name that shows nothing (Hangul fillers, zero-width characters), or holds a character that
  shows nothing, is refused, each with its own catalog message.
- Passwords among the most common ones (zxcvbn's list, in any case) and passwords of spaces are
  refused.
- The profile's total of a match is in the unit of the table's and the history's totals (R8:
  without the one-deck factor); the lifetime score keeps the factor (R7).
- The history names the seat its person sat at and who sat at the others (a person's name, else
  the computer player's level).
- Revision ``0006`` keys the names of an older database, finds its people's seats and brings its
  totals to the match's unit.

Each test that uses the database runs on SQLite and on PostgreSQL (``STORES``).
"""

from __future__ import annotations

import json
import string
import threading
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, select, text
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.server import migrations
from gongzhu.server.app import create_app
from gongzhu.server.identity import AccountError, check_name, check_password
from gongzhu.server.names import common_password, invisible, name_skeleton, reserved
from gongzhu.server.store import MATCH_PLAYERS, USERS, Charge, Store
from helpers.client import LOCAL, Browser, local_client, new_match, play_deal, refused, seating, user_of
from helpers.database import STORES

PASSWORD = "correct horse"


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Any:
    return create_app(db_url, pace=0, static_dir=tmp_path / "no-static")


def browser(app: Any) -> TestClient:
    """Another browser (its own cookie jar, no session yet) on the same application."""
    return TestClient(app, base_url=LOCAL, client=("testclient", 50000))


def sign_up(c: TestClient, name: str, password: str = PASSWORD) -> Any:
    c.get("/api/me")
    return c.post("/api/account", json={"name": name, "password": password})


def refusal_of(name: str) -> AccountError:
    with pytest.raises(AccountError) as info:
        check_name(name)
    assert info.value.status == 400
    return info.value


# ---------------------------------------------------------------------- names that look alike


def test_skeletons_follow_uts39_simplified_characters_marks_and_case() -> None:
    alike = [
        ("Alice", "Аlice"),  # a Cyrillic А
        ("Alice", "Alicé"),  # an added combining mark (NFKC composes it: é)
        ("Alice", "Ali\u0336ce"),  # a stroke drawn over a letter
        ("Alice", "AIice"),  # a capital I for the small l
        ("Alice", "alice"),
        ("paypal", "ρaypal"),  # a Greek ρ
        ("张三", "張三"),  # traditional characters
        ("游客", "遊客"),
        ("高手", "髙手"),  # a variant form
        ("computer", "C0mputer"),
        ("AI", "Al"),  # a capital I and a small l
        ("Al", "ai"),  # ai is the name AI, which looks like Al
        ("aiice", "Alice"),  # AIICE
    ]
    for a, b in alike:
        assert name_skeleton(a) == name_skeleton(b), (a, b)
    for a, b in [("Alice", "Alicia"), ("Bob", "Rob"), ("张三", "李四")]:
        assert name_skeleton(a) != name_skeleton(b), (a, b)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_name_that_looks_like_an_accounts_is_refused(app: Any) -> None:
    with browser(app) as c:
        assert sign_up(c, "Alice").status_code == 200
    with browser(app) as c:
        assert sign_up(c, "张三").status_code == 200
    store: Store = app.state.store
    with store.engine.connect() as conn:
        rows = conn.execute(select(USERS.c.name, USERS.c.name_skeleton).where(USERS.c.guest.is_(False))).all()
    assert sorted(rows) == sorted([("Alice", name_skeleton("Alice")), ("张三", name_skeleton("张三"))])
    for name, other in [("Аӏісе", "Alice"), ("Alicé", "Alice"), ("Ali\u0336ce", "Alice"), ("AIice", "Alice"),
                        ("張三", "张三")]:  # Аӏісе: Cyrillic letters only
        with browser(app) as c:
            body = refused(sign_up(c, name), 409, "server.account_name_like")
            assert body["params"] == {"name": name, "other": other}
            assert other in body["message_zh"] and other in body["error"]
            assert c.get("/api/me").json()["guest"] is True
    with browser(app) as c:  # a name that only shares letters is free
        assert sign_up(c, "Alicia").status_code == 200


def test_names_kept_back_through_their_look_alikes() -> None:
    kept = {
        "server.account_name_reserved": [
            "遊客", "遊客1234", "ＧＵＥＳＴ", "電腦", "電腦玩家", "机器人1", "機器人", "R0bot", "C0mputer",
            "Сomputer",  # a Cyrillic С
            "Computer9", "Expert", "Expert2", "EXPERT_3", "髙手", "高手1", "隨機", "初級", "中級", "神經網絡",
            "Learned", "Intermediate-2", "AI", "AI1", "ai_7", "Аі",  # Cyrillic А and і
            "Bot", "Bot3", "逰客", "㳺客1234",  # rare forms of 游
            "人机", "人机3", "人机大师",
        ],
        "server.account_name_local": ["本机玩家", "本機玩家", "local", "LOCAL7", "lоcal"],  # a Cyrillic о
        "server.account_name_staff": ["admin", "Admin1", "Аdmin", "ADMlN", "administrator", "moderator",
                                      "system", "System_1", "sуstem", "系统", "系統", "管理員", "管理员2",
                                      "Mod", "MOD", "mods", "Mod7", "管理", "版主", "版主1", "小版主"],
    }
    for code, names in kept.items():
        for name in names:
            error = refusal_of(name)
            assert error.text.key == code, (name, error.text.key)
            assert error.text.json["params"] == {"name": unicodedata.normalize("NFKC", name)}, name
    for name in ["Alice", "Al", "A1", "Computing", "Botany", "Systematic", "张三", "高山", "Zoë", "7", "Ada_1",
                 "modest", "Modric", "时间管理大师", "游泳", "人生"]:
        assert check_name(name) == name and reserved(name) is None, name


def test_names_that_look_like_a_deleted_players_or_stack_marks() -> None:
    """A deleted account's neutral name (``deleted-`` and six hex digits) is kept back through
    its look-alikes too; a name may carry at most three combining marks on one character, as a
    chat line may (Vietnamese and Thai stack two or three; more draw over the lines around it)."""
    for name in ["deleted-0157d1", "Deleted-ab12cd", "d\u0435leted-0157d1", "deIeted-a1b2c3", "DELETED-9",
                 "ｄｅｌｅｔｅｄ-1",
                 # how the pages show a deleted account's name, in either language, and its like
                 "已删除的玩家", "已刪除的玩家", "已删除玩家", "已注销的玩家", "deleted_player", "DeletedPlayer",
                 "Deleted-Player", "deletedplayer2"]:
        assert refusal_of(name).text.key == "account_care.name_deleted", name
    stacked = "Z" + "\u0336\u0334\u0335\u0337" * 3 + "al"
    error = refusal_of(stacked)
    assert (error.text.key, error.text.json["params"]) == ("server.account_name_marks", {"limit": 3})
    for name in ["Nguyễn", "Trần_Thị", "Deleted", "deletedx", "Ze\u0301\u0302\u0303x", "玩家", "已删除"]:
        assert check_name(name) == unicodedata.normalize("NFKC", name), name


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_two_look_alike_names_given_at_one_moment_are_not_both_taken(app: Any) -> None:
    """Two people sign up at the same moment with names that look alike (each request's check
    before the password's hash passes, as neither is written yet): the names are checked again one
    at a time as they are written, so one gets the name and the other is told it looks like it."""
    identity = app.state.identity
    real = identity.hasher
    both_checked = threading.Barrier(2, timeout=30)

    class Together:
        """The password hasher, holding each sign-up until the other has been checked too."""

        def hash(self, password: str) -> str:
            both_checked.wait()
            hashed: str = real.hash(password)
            return hashed

    identity.hasher = Together()
    answers: dict[str, Any] = {}

    def sign_up_as(name: str) -> None:
        c = browser(app)
        answers[name] = sign_up(c, name)

    names = ["BOBBY", "\u0412\u041e\u0412\u0412\u0423"]  # the second in Cyrillic capitals
    threads = [threading.Thread(target=sign_up_as, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(answers[name].status_code for name in names)
    assert statuses == [200, 409], {name: answers[name].text for name in names}
    loser = next(name for name in names if answers[name].status_code == 409)
    assert answers[loser].json()["code"] == "server.account_name_like"
    store: Store = app.state.store
    with store.engine.connect() as conn:
        taken = conn.scalars(select(USERS.c.name).where(USERS.c.guest.is_(False))).all()
    assert len(taken) == 1 and taken[0] != loser


def test_names_that_show_nothing() -> None:
    # As typed: NFKC makes U+3164 and U+FFA0 the filler U+1160.
    for name, shown in [("\uffa0\uffa0", "U+FFA0"), ("\u3164", "U+3164"), ("\u115f\u1160", "U+115F"),
                        ("\u200b\u200c", "U+200B"), (" \u3164 \u3164", "U+3164")]:
        error = refusal_of(name)
        assert (error.text.key, error.text.json["params"]) == ("server.account_name_invisible", {"char": shown})
    for name, shown in [("Al\u3164ice", "U+3164"), ("Bob\ufe0f", "U+FE0F"), ("Bo\u034fb", "U+034F")]:
        error = refusal_of(name)
        assert (error.text.key, error.text.json["params"]) == ("server.account_name_hidden", {"char": shown})
    assert all(invisible(c) for c in "\u115f\u1160\u3164\uffa0\u200b\u200c\u200d\u2060\ufeff\ufe0f\u034f")
    assert not any(invisible(c) for c in "aZ张ᄀ한 _")


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_refusals_of_names_read_in_both_languages(app: Any) -> None:
    with browser(app) as c:
        body = refused(sign_up(c, "Сomputer"), 400, "server.account_name_reserved")
        assert body["params"] == {"name": "Сomputer"}
        refused(sign_up(c, "系統"), 400, "server.account_name_staff")
        refused(sign_up(c, "本機玩家"), 400, "server.account_name_local")
        body = refused(sign_up(c, "\u3164\u3164"), 400, "server.account_name_invisible")
        assert "U+3164" in body["error"] and "U+3164" in body["message_zh"]
        refused(sign_up(c, "Al\u3164ice"), 400, "server.account_name_hidden")
        assert c.get("/api/me").json()["guest"] is True


# ---------------------------------------------------------------------- case, Japanese forms, scripts, staff

#: Look-alikes of Latin letters in Cyrillic and Greek, as a mixed name would hold them.
FOREIGN = {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "A": "А", "B": "В", "E": "Е",
           "H": "Н", "I": "І", "K": "К", "M": "М", "O": "О", "P": "Р", "T": "Т", "X": "Х", "Z": "Ζ", "N": "Ν"}


@pytest.mark.parametrize(("name", "other"), [
    ("Bill", "ВILL"),  # a Cyrillic В: BILL is the name Bill
    ("Tim", "TΙM"),  # a Greek Ι
    ("Bill", "BlLL"),  # a small l for the capital I of BILL
    ("Tim", "ТІМ"),  # Cyrillic letters only
    ("Alice", "ALICE"),
    ("Alice", "AIice"),  # as before: a capital I for the small l
    ("Li", "LI"),
])
def test_names_look_alike_in_any_case(name: str, other: str) -> None:
    assert name_skeleton(name) == name_skeleton(other) == name_skeleton(other.casefold())


@settings(deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=16))
def test_a_latin_names_key_is_the_same_in_any_case(name: str) -> None:
    look = name_skeleton(name)
    assert name_skeleton(name.upper()) == name_skeleton(name.lower()) == name_skeleton(name.swapcase()) == look


@pytest.mark.parametrize(("name", "other"), [
    ("剑客", "剣客"), ("青龙", "靑龙"), ("姬发", "姫发"), ("户", "戸"), ("樱", "桜"), ("广", "広"), ("团", "団"),
    ("亚", "亜"), ("恶", "悪"), ("气", "気"), ("对", "対"), ("战", "戦"), ("读", "読"), ("边", "辺"), ("铁", "鉄"),
    ("岁", "歳"), ("发", "髪"), ("国", "囯"), ("卫", "衞"),
])
def test_japanese_and_variant_forms_look_like_the_simplified_characters(name: str, other: str) -> None:
    assert name_skeleton(name) == name_skeleton(other), (name, other)
    assert name_skeleton(f"{name}1号") == name_skeleton(f"{other}1号")


def test_characters_of_chinese_that_japanese_writes_for_others_stay_apart() -> None:
    """Japanese writes ``芸`` for ``藝`` and ``沪`` for ``濾``: in Chinese they are other characters,
    and the traditional characters keep their simplified ones (``衛``: ``卫``)."""
    assert name_skeleton("剣客") == name_skeleton("劍客") == name_skeleton("剑客")
    assert name_skeleton("衞") == name_skeleton("衛") == name_skeleton("卫")
    for name, other in [("王芸", "王艺"), ("沪生", "滤生"), ("予之", "豫之"), ("张欠", "张缺")]:
        assert name_skeleton(name) != name_skeleton(other), (name, other)


@pytest.mark.parametrize(("name", "other"), [
    ("alice", "ᴀʟɪᴄᴇ"),  # small capitals
    ("bob", "ƅob"),  # a tone six
    ("Bob", "Ɓob"),  # a B with a hook
    ("kiki", "kiĸi"),  # a kra
    ("Bob", "ʙᴏʙ"),
])
def test_small_capitals_and_letters_like_them_look_like_their_letters(name: str, other: str) -> None:
    assert name_skeleton(name) == name_skeleton(other)


def test_names_that_mix_scripts_are_refused_and_names_of_one_script_or_latin_with_chinese_kept() -> None:
    """One script, or Latin with Chinese, Japanese or Korean; digits and ``_ - ·`` with any."""
    for name in ["ВILL", "TΙM", "Ⲁnn", "kiκi", "Вo", "Jοhn", "Ali٣", "Иван_Ivan", "Αλέξης_A"]:
        error = refusal_of(name)
        assert (error.text.key, error.text.json["params"]) == ("server.account_name_scripts", {"name": name}), name
        assert name in error.text.render("zh") and name in error.text.render("en")
    for name in ["Alice", "Bill", "Tim", "Al", "Ali", "A1", "Zoë", "Nguyễn", "张三", "王芸", "李郎", "欧阳娜娜",
                 "司马懿", "剑客", "剣客", "Tom汤姆", "小明Ming", "Alice_王", "Tomの猫", "山田太郎", "さくら",
                 "ラーメン", "Kim김", "Иван·Петров", "ТІМ", "Αλέξης", "ᴀʟɪᴄᴇ", "हिन्दी", "Hawaiʻi", "a_b-c·d", "Ann_7",
                 "7"]:
        assert check_name(name) == name and reserved(name) is None, name


@settings(deadline=None)
@given(st.text(alphabet=string.ascii_letters, min_size=2, max_size=16), st.data())
def test_a_latin_name_with_a_letter_of_another_script_is_refused(name: str, data: st.DataObject) -> None:
    at = [i for i, c in enumerate(name) if c in FOREIGN]
    assume(at and any(c not in FOREIGN for c in name))
    i = data.draw(st.sampled_from(at))
    mixed = name[:i] + FOREIGN[name[i]] + name[i + 1:]
    assert name_skeleton(mixed) == name_skeleton(name)
    assert refusal_of(mixed).text.key in {"server.account_name_scripts", "server.account_name_reserved",
                                          "server.account_name_local", "server.account_name_staff",
                                          "account_care.name_deleted"}


def test_names_holding_a_staff_word_are_refused_and_names_that_only_share_letters_kept() -> None:
    """A staff word is the whole name, or a word of it (split at ``_ - ·``, digits, capitals and
    Chinese characters): one beginning with ``admin``, ``moderator`` or ``operator``; ``system``,
    ``staff``, ``support`` or their plurals; the Chinese words anywhere among Chinese characters.
    ``GM`` only as the whole name."""
    for name in ["operator", "Operator·", "Operator2", "站长", "官方", "客服", "运营", "系统消息", "系统通知",
                 "系統通知", "GM", "gm_7", "staff", "support", "Moderators", "admin_team", "AdminTeam", "TechSupport",
                 "staff-Tom", "Systems", "SUPPORT_1", "ADMINISTRATORS", "GMAdmin", "拱猪官方", "在线客服",
                 "超级管理员", "运营小王", "官方Tom",
                 # split by digits or _ - · anywhere, and more staff words
                 "官·方", "客·服", "管理·员", "系·统", "Ad·min", "系_统消息", "管理1员", "Ro_ot",
                 "Official", "GongzhuOfficial", "Root", "SysOp", "WebMaster", "管理者", "超管"]:
        assert refusal_of(name).text.key == "server.account_name_staff", name
    assert refusal_of("游·客4821").text.key == "server.account_name_reserved"
    for name in ["Gmail", "GM_Tom", "Tom_Stafford", "Staffordshire", "Systematic", "Supporter", "Moderato",
                 "Operetta", "幸运星", "客人", "官员", "Mod_est", "Officially", "Li_Mod", "R2D2", "Jo-Anne", "张_三"]:
        assert check_name(name) == name and reserved(name) is None, name


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_signing_up_refuses_look_alikes_in_any_case_and_form_and_mixed_or_staff_names(app: Any) -> None:
    for name in ["Bill", "Tim", "剑客", "alice"]:
        with browser(app) as c:
            assert sign_up(c, name).status_code == 200
    for name, other in [("BlLL", "Bill"), ("ТІМ", "Tim"), ("剣客", "剑客"), ("ᴀʟɪᴄᴇ", "alice")]:
        with browser(app) as c:  # ТІМ: Cyrillic capitals
            body = refused(sign_up(c, name), 409, "server.account_name_like")
            assert body["params"] == {"name": name, "other": other}
    with browser(app) as c:
        body = refused(sign_up(c, "kiκi"), 400, "server.account_name_scripts")
        assert body["params"] == {"name": "kiκi"} and "kiκi" in body["message_zh"] and "kiκi" in body["error"]
        refused(sign_up(c, "ВILL"), 400, "server.account_name_scripts")
        refused(sign_up(c, "admin_team"), 400, "server.account_name_staff")
        refused(sign_up(c, "系统通知"), 400, "server.account_name_staff")
        assert c.get("/api/me").json()["guest"] is True
        assert sign_up(c, "Tom汤姆").status_code == 200


# ---------------------------------------------------------------------- passwords


def test_common_and_blank_passwords_are_refused() -> None:
    for password in ["password", "PASSWORD", "Password", "iloveyou", "qwertyuiop", "1qaz2wsx", "12345678",
                     "Sunshine", " password "]:
        assert common_password(password), password
        with pytest.raises(AccountError) as info:
            check_password(password)
        assert (info.value.status, info.value.text.key) == (400, "server.account_password_common"), password
    for password in [" " * 8, "\u3000" * 8, "\t" * 10, "\u200b" * 8, " \n " * 4]:
        with pytest.raises(AccountError) as info:
            check_password(password)
        assert (info.value.status, info.value.text.key) == (400, "server.account_password_blank"), repr(password)
    for password in [PASSWORD, "a good password", "x" * 128, "我的密码很长很长"]:
        check_password(password)
        assert not common_password(password)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_server_refuses_common_and_blank_passwords(app: Any) -> None:
    with browser(app) as c:
        refused(sign_up(c, "Bob", "Password"), 400, "server.account_password_common")
        refused(sign_up(c, "Bob", " " * 12), 400, "server.account_password_blank")
        assert c.get("/api/me").json()["guest"] is True
        assert sign_up(c, "Bob", PASSWORD).status_code == 200


# ---------------------------------------------------------------------- the profile's totals


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_profile_totals_a_match_as_the_table_and_the_history_do(client: TestClient) -> None:
    """Online rules score one deck with the factor 12 (R7, R10): the table's and the history's
    totals leave it out (R8), and so does the profile's total; the practice score (a single-player
    match is practice: apart from the lifetime score) keeps it."""
    match_id = new_match(client, seed=11)
    for k in range(4):  # until South's total is not 0, so that the units differ
        play_deal(client, match_id, seed=k)
        history = next(m for m in client.get("/api/matches").json() if m["match_id"] == match_id)
        if history["totals"]["S"] != 0 or history["over"]:
            break
        with client.websocket_connect(f"/ws/{match_id}") as ws:  # the next deal
            table = Browser(ws)
            table.settle()
            table.send({"type": "next"})
            table.settle()
    total = history["totals"]["S"]
    assert total != 0
    profile = client.get("/api/profile").json()
    assert [(m["id"], m["total"]) for m in profile["matches_list"]] == [(match_id, total)]
    assert profile["practice"]["score"] == 12 * total and profile["lifetime"] == 0


# ---------------------------------------------------------------------- the history's seats and people


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_history_names_your_seat_and_the_others_at_the_table(client: TestClient) -> None:
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)
    me = client.get("/api/me").json()
    listed = client.get("/api/matches").json()
    assert [(m["match_id"], m["your_seat"]) for m in listed] == [(match_id, "S")]
    assert listed[0]["players"] == {"N": {"name": None, "computer": "random"},
                                    "E": {"name": None, "computer": "beginner"},
                                    "S": {"name": me["name"], "computer": None},
                                    "W": {"name": None, "computer": "intermediate"}}
    assert client.get(f"/api/matches/{match_id}").json()["your_seat"] == "S"
    # A table for people: Ann sits at North; Ben played a deal at East and stood up since.
    app = client.app
    assert isinstance(app, Starlette)
    with local_client(app) as ann_browser, local_client(app) as ben_browser:
        ann_browser.get("/api/me")
        ben_browser.get("/api/me")
        ann, ben = user_of(ann_browser), user_of(ben_browser)
        store: Store = app.state.store
        seats = ((ann.id, ann.name), None, None, None)
        store.create_match(match_id="m-people", preset="online", options={}, speed="normal", seed=1,
                           seating=seating(None, host=ann.id, seats=seats, dealt_to=(ann.id, ben.id, None, None)))
        store.finish_deal("m-people", 0, record_line="{}", south_final=0, totals=[-5, 5, 0, 0], over=False,
                          winners=[], pigs=[], charges=[Charge(ann.id, -60, result=-5, seat="N"),
                                                        Charge(ben.id, 60, result=5, seat="E")])
        for c, seat in [(ann_browser, "N"), (ben_browser, "E")]:
            found = c.get("/api/matches").json()
            assert [(m["match_id"], m["your_seat"]) for m in found] == [("m-people", seat)]
            assert found[0]["players"] == {"N": {"name": ann.name, "computer": None},
                                           "E": {"name": ben.name, "computer": None},
                                           "S": {"name": None, "computer": "intermediate"},
                                           "W": {"name": None, "computer": "intermediate"}}
            assert [m["total"] for m in c.get("/api/profile").json()["matches_list"]] == [{"N": -5, "E": 5}[seat]]
    # Someone who only has the match's id (not at the table) sees the people and no seat of theirs.
    assert client.get("/api/matches/m-people").json()["your_seat"] is None


# ---------------------------------------------------------------------- an older database


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_revision_0006_keys_names_finds_seats_and_totals_in_the_matchs_unit(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            cfg = migrations.config()
            cfg.attributes["connection"] = c
            command.upgrade(cfg, "0005")
            c.execute(text(
                "INSERT INTO users (id, name, name_key, password_hash, guest, created, lifetime, deals, matches, pigs, "
                "session_epoch) VALUES (:id, :name, :key, :hash, :guest, '2026-01-01', :lifetime, 1, 1, 0, 0)"), [
                {"id": "u-alice", "name": "Alice", "key": "alice", "hash": "$argon2id$x", "guest": False,
                 "lifetime": -1248},
                {"id": "u-guest", "name": "游客0001", "key": "游客0001", "hash": None, "guest": True, "lifetime": 24},
            ])
            made: list[tuple[str, str, list[str | None], bool]] = [
                ("m-solo", "{}", [None, None, "u-alice", None], True),  # online: the factor 12
                ("m-raw", '{"scoring": "raw"}', [None, None, None, None], False),  # no factor
            ]
            for match_id, options, seats, solo in made:
                c.execute(text(
                    "INSERT INTO matches (id, created, preset, options, levels, speed, seed, totals, deals, in_deal, "
                    "over, winners, pigs, host, seats, visibility, status, version, solo, seeded, dealt_to) VALUES "
                    "(:id, '2026-01-01', 'online', :options, '{}', 'normal', 1, '[0, 0, -104, 0]', 1, :no, :no, "
                    "'[]', '[]', 'u-alice', :seats, 'private', 'playing', 0, :solo, :no, :dealt)"),
                    {"id": match_id, "options": options, "no": False, "solo": solo,
                     "seats": _seats(seats), "dealt": '[null, "u-guest", null, null]'})
            c.execute(text("INSERT INTO match_players (match_id, user_id, deals, total, pig, last) VALUES "
                           "(:m, :u, 1, :total, :no, '2026-01-01')"), [
                {"m": "m-solo", "u": "u-alice", "total": -1248, "no": False},
                {"m": "m-solo", "u": "u-guest", "total": 24, "no": False},
                {"m": "m-raw", "u": "u-alice", "total": -7, "no": False},
            ])
            c.commit()
    finally:
        engine.dispose()
    store = Store(db_url)  # brought to the newest revision
    try:
        with store.engine.connect() as c:
            users = dict(c.execute(select(USERS.c.id, USERS.c.name_skeleton)).all())
            played = {(r.match_id, r.user_id): (r.total, r.seat) for r in c.execute(select(MATCH_PLAYERS))}
        assert users == {"u-alice": name_skeleton("Alice"), "u-guest": None}
        assert played == {("m-solo", "u-alice"): (-104, "S"), ("m-solo", "u-guest"): (2, "E"),
                          ("m-raw", "u-alice"): (-7, None)}
    finally:
        store.close()


def _seats(users: list[str | None]) -> str:
    return json.dumps([{"user": u, "name": u} if u else {"user": None, "name": None} for u in users])
