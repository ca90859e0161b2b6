"""An evening at the table, end to end, in Chromium (one per system): a GM and two players sign
up through the pages and join by the invite link, make their characters, ask and roll with the
live odds, roll privately and in secret, and one player's connection drops and catches up. Each
step asserts what each of the three pages shows and what it must not. The screenshots of the
room, a sheet and the GM panel (tests/evening.py ``shoot``) are the README's."""

import re

from tests.browser import BROWSER, confirm, settled
from tests.evening import Table, check_card, posting_to, seqs, shoot, submit

pytestmark = BROWSER

DROPPED = re.compile(r"[?&]after=(\d+)$")


def pool_rows(page, color):
    """The sheet's mana pool rows of ``color``, named "color current maximum"."""
    return page.locator("#sheet-mana").get_by_role("row", name=re.compile(rf"^{color} \d"))


def character_id(sheet_path):
    return re.search(r"/characters/(\d+)/", sheet_path).group(1)


class TestManaEvening(Table):
    def set_maxima(self, gm, sheet_path, maxima):
        form = posting_to(gm, f"/gm/mana/{character_id(sheet_path)}/maxima/")
        for color, maximum in maxima.items():
            form.get_by_label(color, exact=True).fill(str(maximum))
        submit(form)
        settled(gm)

    def test_an_evening_of_mana(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm, ana, ben = (self.new_page(browser) for _ in range(3))

            # Sign-up, the campaign with its skills, the invite, the characters.
            invite = self.gm_signs_up_and_creates(
                gm,
                "gm",
                name="Blue Harbor",
                system="mana",
                skills="Gather Information | blue | white\nJump | red | green | Athletic",
            )
            mira = self.player_joins(ana, invite, "ana", "Mira", "Harbor spy")
            tam = self.player_joins(ben, invite, "ben", "Tam", "Dock runner")
            warden = self.create_character(gm, "The Warden", "Harbor master")
            gm.goto(self.url(self.campaign_path))
            for name in ("ana", "ben"):
                expect(gm.locator("#members")).to_contain_text(name)

            # The GM fills the mana pools from the GM panel.
            gm.goto(self.url(self.campaign_path + "gm/"))
            settled(gm)
            self.set_maxima(gm, mira, {"blue": 5, "white": 5, "colorless": 4})
            self.set_maxima(gm, tam, {"red": 3, "green": 3})
            self.set_maxima(gm, warden, {"blue": 3, "white": 3})
            submit(posting_to(gm, "/gm/mana/refill/"))
            settled(gm)

            # The sheets: Ana sees Mira's pool; Ben sees Mira but not her pool.
            ana.goto(self.url(mira))
            expect(pool_rows(ana, "blue")).to_have_accessible_name("blue 5 5")
            ben.goto(self.url(mira))
            expect(ben.locator("#sheet-header h1")).to_have_text("Mira")
            expect(ben.locator("#sheet-mana")).to_contain_text("Only ana and the GM see this pool")
            expect(pool_rows(ben, "blue")).to_have_count(0)

            # The room: Ana's page goes through a route that can take its socket away.
            self.open_room(gm)
            sockets, drop, back = self.droppable_room(ana)
            self.open_room(ben)
            for name in ("ana", "ben"):
                expect(gm.locator("#presence")).to_contain_text(name)

            # A public check for Mira, out of reach on purpose: it fails, and is tried again.
            self.ask(gm, character="Mira (ana)", about="Gather Information", target=30)
            card = check_card(ana, "Mira")
            expect(card).to_have_count(1)
            expect(check_card(gm, "Mira")).to_have_count(1)
            expect(check_card(ben, "Mira")).to_have_count(0)
            settled(ana)
            odds = card.locator("output")
            expect(odds).to_contain_text("1d10")
            card.locator("[name=spend_a]").fill("1")
            card.locator("[name=spend_b]").fill("1")
            expect(odds).to_contain_text("1 free + 2 mana + 1 synergy = 4d10")
            expect(odds).to_contain_text("0.0%")  # 8 successes at most against 30
            card.locator("[name=intent]").fill("Ask around the docks")
            settled(ana)
            submit(posting_to(card, "/roll/"))
            for page in (gm, ana, ben):
                expect(page.locator("#log article.entry")).to_have_count(1)
                expect(page.locator("#entry-1")).to_contain_text("Ask around the docks")
                expect(page.locator("#entry-1")).to_contain_text("failure")
            expect(card).to_contain_text("failure")

            submit(posting_to(check_card(gm, "Mira"), "/reattempt/"))
            expect(card.locator("[name=spend_a]")).to_be_visible()
            settled(ana)
            card.locator("[name=spend_a]").fill("1")
            card.locator("[name=spend_b]").fill("1")
            # The re-attempt's die for the two mana spent before.
            expect(odds).to_contain_text("= 5d10")
            card.locator("[name=intent]").fill("Ask the harbor master's clerk")
            settled(ana)
            submit(posting_to(card, "/roll/"))
            for page in (gm, ana, ben):
                expect(page.locator("#entry-2")).to_contain_text("attempt 2")
                expect(page.locator("#entry-2")).to_contain_text("Ask the harbor master's clerk")

            # Ana's connection drops. While she is away Ben rolls privately and the GM in secret.
            drop()
            expect(ana.locator('#ws-status[data-state="bad"]')).to_have_count(1)
            self.ask(gm, character="Tam (ben)", about="Jump", target=1, visibility="private")
            tam_card = check_card(ben, "Tam")
            expect(tam_card.locator("[name=spend_a]")).to_be_visible()
            settled(ben)
            tam_card.locator("[name=spend_a]").fill("1")
            tam_card.locator("[name=intent]").fill("Leap onto the barge")
            settled(ben)
            submit(posting_to(tam_card, "/roll/"))
            for page in (gm, ben):
                expect(page.locator("#entry-3")).to_contain_text("Leap onto the barge")

            self.ask(
                gm,
                character="The Warden (gm)",
                about="Gather Information",
                target=2,
                visibility="secret",
            )
            warden_card = check_card(gm, "The Warden")
            expect(warden_card.locator("[name=spend_a]")).to_be_visible()
            expect(check_card(ben, "The Warden")).to_have_count(0)
            warden_card.locator("[name=spend_a]").fill("1")
            warden_card.locator("[name=intent]").fill("Spot the knife")
            settled(gm)
            submit(posting_to(warden_card, "/roll/"))
            expect(gm.locator("#entry-4")).to_contain_text("Spot the knife")
            expect(ben.locator("#entry-4")).to_contain_text("gm rolled in secret")
            commitment = gm.locator("#entry-4 .commitment").get_attribute("title")
            expect(ben.locator("#entry-4")).to_contain_text(f"Commitment {commitment[:16]}")
            expect(ben.locator("#log")).not_to_contain_text("Spot the knife")
            # Ana's page, away, has seen none of it.
            assert seqs(ana) == [1, 2]

            # She comes back: her page asks for what followed entry 2 and shows each once.
            back()
            # Away for longer than eight tries (static/js/site.js), the page waits up to 10 s
            # between two.
            expect(ana.locator('#ws-status[data-state="ok"]')).to_have_count(1, timeout=15_000)
            expect(ana.locator("#log article.entry")).to_have_count(4)
            assert DROPPED.search(sockets[-1]).group(1) == "2", sockets
            assert seqs(ana) == [1, 2, 3, 4]
            expect(ana.locator("#entry-3")).to_contain_text("ben rolled privately.")
            expect(ana.locator("#entry-4")).to_contain_text(f"Commitment {commitment[:16]}")
            for hidden in ("Leap onto the barge", "Spot the knife"):
                expect(ana.locator("#log")).not_to_contain_text(hidden)

            # The GM reveals the secret roll: every page shows it, checked against the
            # commitment.
            submit(posting_to(gm.locator("#entry-4"), "/reveal/"))
            confirm(gm)
            for page in (gm, ana, ben):
                entry = page.locator("#entry-5")
                expect(entry).to_contain_text("gm revealed the secret roll #4")
                expect(entry).to_contain_text("Spot the knife")
                expect(entry).to_contain_text("matches the commitment")
            assert seqs(gm) == seqs(ana) == seqs(ben) == [1, 2, 3, 4, 5]
            expect(ana.locator("#log")).not_to_contain_text("Leap onto the barge")

            shoot(gm, "room-mana")
            # Mira spent 1 blue and 1 white twice.
            ana.goto(self.url(mira))
            expect(pool_rows(ana, "blue")).to_have_accessible_name("blue 3 5")
            shoot(ana, "sheet-mana")
            gm.goto(self.url(self.campaign_path + "gm/"))
            settled(gm)
            shoot(gm, "gm-mana")
            browser.close()


class TestPoolEvening(Table):
    def set_ratings(self, gm, sheet_path, ratings):
        """The GM sets ratings on the sheet (the rating forms, named "Rating of <label>")."""
        from playwright.sync_api import expect

        gm.goto(self.url(sheet_path))
        for label, value in ratings.items():
            field = gm.get_by_label(f"Rating of {label}", exact=True)
            field.fill(str(value))
            submit(field.locator("xpath=ancestor::form[1]"))
            settled(gm)
            expect(gm.get_by_label(f"Rating of {label}", exact=True)).to_have_value(str(value))

    def test_an_evening_of_pool(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm, ana, ben = (self.new_page(browser) for _ in range(3))

            invite = self.gm_signs_up_and_creates(
                gm, "gm", name="The Northern Marches", system="pool"
            )
            ilse = self.player_joins(ana, invite, "ana", "Ilse", "Scout of the fens")
            odo = self.player_joins(ben, invite, "ben", "Odo", "Wandering envoy")
            bandit = self.create_character(gm, "The Bandit", "Waits by the ford")
            self.set_ratings(gm, ilse, {"Agility": 2, "Dodge": 1})
            self.set_ratings(gm, odo, {"Social": 2, "Negotiate": 1})
            self.set_ratings(gm, bandit, {"Trick": 2})
            # Every member sees the sheet's ratings; sparetime only its player and the GM.
            ben.goto(self.url(ilse))
            expect(ben.locator("#sheet-pool .attribute", has_text="Agility")).to_contain_text("2d6")
            expect(ben.locator("#sparetime")).to_have_count(0)

            self.open_room(gm)
            sockets, drop, back = self.droppable_room(ana)
            self.open_room(ben)
            submit(posting_to(gm, "/session/start/"))
            for page in (gm, ana, ben):
                expect(page.locator("#entry-1")).to_contain_text("Session 1 started")

            # A public check; Ilse proposes a shift, the GM approves it and the dice roll.
            self.ask(gm, character="Ilse (ana)", about="Agility", target=4, note="The ford")
            card = check_card(ana, "Ilse")
            expect(card).to_have_count(1)
            expect(check_card(ben, "Ilse")).to_have_count(0)
            settled(ana)
            odds = card.locator("output")
            # The exact chances against TN 4 (rules.pool): 2d6, then with Dodge's d10,
            # then with a d6 shifted aside.
            expect(odds).to_contain_text(re.compile(r"75\.0%.*2d6"))
            card.locator("[name=skill]").select_option(label="Dodge 1d10")
            expect(odds).to_contain_text(re.compile(r"92\.5%.*2d6 \+ 1d10"))
            card.locator("[name=shift_d6]").fill("1")
            expect(odds).to_contain_text(re.compile(r"85\.0%.*1d6 \+ 1d10 \(1d6 shifted\)"))
            expect(odds).to_contain_text("Name the bonus effect")
            card.locator("[name=bonus_effect]").fill("Land behind the guard")
            expect(odds).to_contain_text("The GM agrees to the shift")
            card.locator("[name=intent]").fill("Cross the ford by the stones")
            settled(ana)
            submit(posting_to(card, "/roll/"))
            expect(card).to_contain_text("Shift proposed: waiting for the GM to agree to it.")
            gm_card = check_card(gm, "Ilse")
            expect(gm_card).to_contain_text("Shift proposed")
            expect(gm_card).to_contain_text("Land behind the guard")
            for page in (gm, ana, ben):
                expect(page.locator("#log article.entry")).to_have_count(1)
            gm_card.locator("button[name=answer][value=approve]").click()
            for page in (gm, ana, ben):
                entry = page.locator("#entry-2")
                expect(entry).to_contain_text("Shifted 1d6 for “Land behind the guard”")
                expect(entry).to_contain_text("Cross the ford by the stones")
                expect(entry).to_contain_text(re.compile("success|failure"))

            # Ben asks for a private check himself; the GM sets the TN; he rolls.
            request = posting_to(ben, "/request/")
            request.locator("[name=suggestion]").fill("Social")
            request.locator("[name=visibility]").select_option("private")
            submit(request)
            odo_gm = check_card(gm, "Odo")
            expect(odo_gm).to_have_count(1)
            expect(check_card(ana, "Odo")).to_have_count(0)
            posting_to(odo_gm, "/target/").locator("[name=target]").fill("3")
            submit(posting_to(odo_gm, "/target/"))
            odo_card = check_card(ben, "Odo")
            expect(odo_card.locator("[name=skill]")).to_be_visible()
            settled(ben)
            odo_card.locator("[name=skill]").select_option(label="Negotiate 1d10")
            odo_card.locator("[name=intent]").fill("Talk the toll down")
            settled(ben)

            # Ana's connection drops first: Ben's private roll and the GM's secret one happen
            # while she is away.
            drop()
            expect(ana.locator('#ws-status[data-state="bad"]')).to_have_count(1)
            submit(posting_to(odo_card, "/roll/"))
            for page in (gm, ben):
                expect(page.locator("#entry-3")).to_contain_text("Talk the toll down")

            self.ask(gm, character="The Bandit (gm)", about="Trick", target=3, visibility="secret")
            bandit_card = check_card(gm, "The Bandit")
            expect(bandit_card.locator("[name=intent]")).to_be_visible()
            expect(check_card(ben, "The Bandit")).to_have_count(0)
            bandit_card.locator("[name=intent]").fill("Hide in the reeds")
            settled(gm)
            submit(posting_to(bandit_card, "/roll/"))
            expect(gm.locator("#entry-4")).to_contain_text("Hide in the reeds")
            commitment = gm.locator("#entry-4 .commitment").get_attribute("title")
            expect(ben.locator("#entry-4")).to_contain_text("gm rolled in secret")
            expect(ben.locator("#entry-4")).to_contain_text(f"Commitment {commitment[:16]}")
            expect(ben.locator("#log")).not_to_contain_text("Hide in the reeds")
            assert seqs(ana) == [1, 2]

            back()
            # Away for longer than eight tries (static/js/site.js), the page waits up to 10 s
            # between two.
            expect(ana.locator('#ws-status[data-state="ok"]')).to_have_count(1, timeout=15_000)
            expect(ana.locator("#log article.entry")).to_have_count(4)
            assert DROPPED.search(sockets[-1]).group(1) == "2", sockets
            assert seqs(ana) == [1, 2, 3, 4]
            expect(ana.locator("#entry-3")).to_contain_text("ben rolled privately.")
            expect(ana.locator("#entry-4")).to_contain_text(f"Commitment {commitment[:16]}")
            for hidden in ("Talk the toll down", "Hide in the reeds"):
                expect(ana.locator("#log")).not_to_contain_text(hidden)

            # Table talk: Ana calls Ben, who rolls dice of his own, their odds shown first.
            ana.fill("#talk-text", "Over here, @ben: the ford is shallow")
            ana.press("#talk-text", "Enter")
            expect(ben.locator("#entry-5")).to_contain_text("the ford is shallow")
            expect(ben).to_have_title(re.compile("^✉1 "))
            ben.fill("#talk-text", "/r 2d6 vs 7")
            expect(ben.locator("#talk-odds")).to_contain_text("58.3%")
            ben.press("#talk-text", "Enter")
            for page in (gm, ana, ben):
                expect(page.locator("#entry-6")).to_contain_text("2d6 vs 7")

            # The session ends; the GM awards sparetime to those who rolled (the NPC, left out
            # of sparetime, is not offered).
            submit(posting_to(gm, "/session/end/"))
            for page in (gm, ana, ben):
                expect(page.locator("#entry-7")).to_contain_text("Session 1 ended")
            award = posting_to(gm, "/gm/sparetime/award/")
            for name in ("Ilse", "Odo"):
                expect(award.get_by_label(name, exact=True)).to_be_checked()
            expect(award.get_by_label("The Bandit", exact=True)).to_have_count(0)
            award.locator("[name=amount]").fill("2")
            award.locator("[name=note]").fill("The ford")
            submit(award)
            expect(gm.get_by_text("Awarded 2 sparetime each to Ilse, Odo.")).to_be_visible()
            assert seqs(gm) == seqs(ana) == seqs(ben) == [1, 2, 3, 4, 5, 6, 7]
            shoot(gm, "room-pool")

            # The GM delegates 2 to Ana, who hands 1 out to Odo for Negotiate.
            gm.goto(self.url(self.campaign_path + "gm/"))
            delegate = posting_to(gm, "/gm/sparetime/delegate/")
            delegate.locator("[name=delegate-player]").select_option(label="ana")
            delegate.locator("[name=delegate-amount]").fill("2")
            submit(delegate)
            expect(gm.locator(".sparetime-balances")).to_contain_text("Odo")
            expect(gm.get_by_text(re.compile(r"Left to hand out:\s*ana 2"))).to_be_visible()
            settled(gm)

            ana.goto(self.url(self.campaign_path))
            handout = posting_to(ana, "/sparetime/handout/")
            expect(ana.locator(".sparetime-left")).to_have_text("2")
            options = handout.locator("[name=targets] option")
            expect(options.filter(has_text="Ilse")).to_have_count(0)  # not to herself
            handout.locator("[name=targets]").select_option(label="Odo — Negotiate")
            handout.locator("[name=amount]").fill("1")
            handout.locator("[name=note]").fill("For the toll")
            # The hand-out asks first: kept, nothing goes; confirmed, it goes.
            submit(handout)
            asked = confirm(ana, "Keep")
            assert asked == (
                "Hand this sparetime out now? It is the character's at once, for the ratings "
                "you name."
            )
            expect(ana.locator(".sparetime-left")).to_have_text("2")
            submit(handout)
            confirm(ana)
            expect(ana.locator(".sparetime-left")).to_have_text("1")

            # Ben spends the earmarked portion on Odo's sheet; Ana her free sparetime.
            ben.goto(self.url(odo))
            negotiate = ben.locator("#sheet-pool tr", has_text="Negotiate")
            expect(negotiate).to_contain_text("1d10")
            portion = ben.locator(".sparetime-portions")
            expect(portion).to_contain_text("From ana")
            expect(portion).to_contain_text("For the toll")
            settled(ben)
            portion.get_by_role("button", name=re.compile("Raise Negotiate 1 → 2")).click()
            ben.get_by_role("button", name="Confirm raise").click()
            expect(negotiate).to_contain_text("2d10")
            expect(ben.locator(".sparetime-free")).to_have_text("2")

            ana.goto(self.url(ilse))
            expect(ana.locator(".sparetime-free")).to_have_text("2")
            settled(ana)
            ana.get_by_role("button", name=re.compile("Raise Dodge 1 → 2")).click()
            ana.get_by_role("button", name="Confirm raise").click()
            expect(ana.locator(".sparetime-free")).to_have_text("1")
            expect(ana.locator("#sheet-pool tr", has_text="Dodge")).to_contain_text("2d10")
            # The GM's card sees the balances the players' sheets show.
            gm.goto(self.url(self.campaign_path + "gm/"))
            balances = gm.locator(".sparetime-balances")
            expect(balances.get_by_role("row", name=re.compile("^Ilse"))).to_have_accessible_name(
                "Ilse ana 1 0"
            )
            expect(balances.get_by_role("row", name=re.compile("^Odo"))).to_have_accessible_name(
                "Odo ben 2 0"
            )
            settled(gm)
            shoot(ana, "sheet-pool")
            shoot(gm, "gm-pool")
            browser.close()
