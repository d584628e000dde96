"""The Chinese of the message catalog speaks the rule book's terms (docs/rules.zh.md): a trick is
a 圈 (R5.4: 其余各圈都归我), 明牌 is another name of exposure (R4) and never of the hindsight
values (all four hands open: 四家牌公开), R4.3's option says 亮过的牌……领出前不得垫出, the partners'
family is 打对家 (R7.3, R9), the person who opens a table is its 房主 everywhere, and the first-lead
options name the card's holder (R5.1)."""

from __future__ import annotations

from pathlib import Path

from gongzhu.messages import catalog

ROOT = Path(__file__).resolve().parent.parent
RULES_ZH = (ROOT / "docs" / "rules.zh.md").read_text(encoding="utf-8")

#: The texts of the hindsight values (the solver's, with every hand open) and where they differ.
HINDSIGHT = (
    "term.analyze.hindsight", "term.analyze.differs", "term.analyze.differs_worst", "term.analyze.line",
    "review.hindsightNoteWorst", "review.differs", "review.differsWorst", "review.hindsight",
    "review.hindsightNone", "review.hindsightNote", "whatif.exactHead", "whatif.legendWorst",
    "whatif.legendTeams", "whatif.noExactLimit",
)


def test_a_trick_is_a_circle_as_in_the_rule_book() -> None:
    zh = catalog("zh")
    assert zh["claim.all_tricks"] == "其余各圈都归我" and "其余各圈都归我" in RULES_ZH  # R5.4
    assert zh["claim.said.all_tricks"] == "其余各圈都归自己"
    assert sorted(key for key, text in zh.items() if "墩" in text) == []


def test_hindsight_is_four_hands_open_not_exposure() -> None:
    zh = catalog("zh")
    assert "明牌" in RULES_ZH.split("### R4.1")[0]  # R4's heading: 明牌 is exposure
    for key in HINDSIGHT:
        assert "明牌" not in zh[key] and "四家牌公开" in zh[key], (key, zh[key])
    assert zh["whatif.exactHead"] == "事后（四家牌公开）"
    assert all(zh[key].startswith("事后（四家牌公开）") for key in HINDSIGHT if "事后（" in zh[key])
    assert sorted(key for key, text in zh.items() if "明牌" in text) == []


def test_the_exposed_discard_option_in_the_words_of_r4_3() -> None:
    zh = catalog("zh")
    assert zh["opt.exposed_discard_before_suit_led"] == "亮过的牌在本门领出前不得垫出"
    assert "亮过的牌" in RULES_ZH and "不得垫出" in RULES_ZH


def test_the_partners_family_is_da_dui_jia() -> None:
    zh = catalog("zh")
    assert zh["family.partners"] == zh["val.scoring.partners"] == "打对家"
    assert zh["preset.partners"].startswith("打对家") and "打对家" in RULES_ZH  # R7.3


def test_the_table_host_is_fang_zhu_everywhere() -> None:
    zh = catalog("zh")
    assert zh["seat.host"] == "房主"
    for key in ("server.host_only", "server.not_started", "summary.seededNote", "waiting.hostNote"):
        assert "房主" in zh[key], key
    assert sorted(key for key, text in zh.items() if "桌主" in text) == []


def test_the_first_lead_options_say_who_leads_what() -> None:
    """R5.1: each first-lead option names the card's holder, who leads (club2_must: the ♣2 itself,
    梅花2先出), in the words of the others ("♣2 holder leads anything")."""
    en, zh = catalog("en"), catalog("zh")
    assert en["val.first_lead.club2_must"] == "♣2 holder must lead ♣2"
    assert zh["val.first_lead.club2_must"] == "梅花2先出"
    assert all("holder" in en[f"val.first_lead.{value}"] for value in ("club2_must", "club2_any", "spade3_any"))
