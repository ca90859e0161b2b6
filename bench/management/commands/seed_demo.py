"""``python manage.py seed_demo``: a demo table, in a database of its own.

Creates the users gm, ana and ben (password "rollroom"), a Mana and a Pool campaign with gm as
GM and ana and ben as players, their characters, a running session with a few rolls in each,
and some sparetime in the Pool campaign. Everything goes through the services, and every die is
rolled by the server's generator. The passwords are public, so it refuses a database that
already has users (a real table's); running it again creates nothing.
"""

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create, membership_join
from rolls.models import PRIVATE, Check, LogEntry
from rolls.services import (
    check_ask,
    check_request,
    free_roll_make,
    message_send,
    session_start,
)
from rolls.systems.mana.services import check_roll_mana, mana_refill, mana_set_maxima, traits_set
from rolls.systems.pool.models import hp_max_of, rating_of
from rolls.systems.pool.services import check_roll_pool, hp_set, rating_set
from rules import notation
from sheets.services import character_create
from sparetime.services import (
    sparetime_delegate,
    sparetime_grant,
    sparetime_handout,
)

PASSWORD = "rollroom"
WAITING = [Check.REQUESTED, Check.OPEN, Check.SHIFT]
GM = "gm"
PLAYERS = ["ana", "ben"]

MANA_NAME = "Demo: Blue Harbor"
POOL_NAME = "Demo: The Northern Marches"

MANA_SKILLS = [
    {"name": "Gather Information", "color_a": "blue", "color_b": "white", "trait": ""},
    {"name": "Jump", "color_a": "red", "color_b": "green", "trait": "Athletic"},
    {"name": "Persuade", "color_a": "white", "color_b": "red", "trait": "Charming"},
    {"name": "Sneak", "color_a": "black", "color_b": "blue", "trait": "Quiet"},
    {"name": "Mend", "color_a": "white", "color_b": "green", "trait": ""},
]
#: Mana characters: owner -> (name, concept, traits, mana maxima).
MANA_CHARACTERS = {
    "ana": (
        "Mira Vell",
        "Dockside fixer",
        ["Athletic", "Curious"],
        {"white": 3, "blue": 4, "black": 1, "red": 2, "green": 3, "colorless": 4},
    ),
    "ben": (
        "Tobin Ash",
        "Disgraced herald",
        ["Charming"],
        {"white": 4, "blue": 2, "black": 2, "red": 3, "green": 1, "colorless": 2},
    ),
}
#: Pool characters: owner -> (name, concept, {(attribute, skill): rating}).
POOL_CHARACTERS = {
    "ana": (
        "Ilse Marr",
        "Scout of the border wardens",
        {
            ("Agility", ""): 3,
            ("Agility", "Dodge"): 2,
            ("Strength", ""): 2,
            ("Strength", "Jump"): 2,
            ("Strength", "Endurance"): 1,
            ("Survival", ""): 3,
            ("Survival", "Orientation"): 2,
            ("Trick", ""): 2,
            ("Trick", "Stealth"): 3,
        },
    ),
    "ben": (
        "Corvin Hale",
        "Hedge mage with a sword",
        {
            ("Combat", ""): 3,
            ("Combat", "Cut Weapons"): 2,
            ("MagicXP", ""): 2,
            ("MagicXP", "Heat Spells"): 3,
            ("Strength", ""): 2,
            ("Strength", "Endurance"): 2,
            ("Social", ""): 1,
            ("Social", "Negotiate"): 1,
        },
    ),
}


class Command(BaseCommand):
    help = (
        'Create demo users (gm, ana, ben; password "rollroom") with a Mana and a Pool campaign. '
        "Only into a database without users."
    )

    def handle(self, *args, **options):
        call_command("migrate", interactive=False, verbosity=0)  # a new demo database, too
        with transaction.atomic():
            if demo_exists():
                self.stdout.write("The demo campaigns already exist; nothing was created.")
            elif users := get_user_model().objects.count():
                raise CommandError(
                    f"This database already has {users} user(s): seed_demo adds users whose "
                    "password is public, so it only loads into a database without users. Nothing "
                    "was created. For a demo beside your table, give it a database of its own: "
                    "SQLITE_PATH=demo.sqlite3 python manage.py seed_demo, and the same "
                    "SQLITE_PATH for manage.py host."
                )
            else:
                users = self.users()
                campaigns = [self.mana_campaign(users), self.pool_campaign(users)]
                self.report(campaigns)
        self.stdout.write(
            f"Log in at {reverse('login')} as {GM} (the GM), or as {' or '.join(PLAYERS)} "
            f'(players), with the password "{PASSWORD}". Anyone who reaches this server can: '
            "a demo, not a table."
        )

    def users(self):
        """The demo users, by username."""
        return {
            username: get_user_model().objects.create_user(username=username, password=PASSWORD)
            for username in [GM, *PLAYERS]
        }

    def mana_campaign(self, users):
        gm = users[GM]
        campaign = campaign_create(user=gm, name=MANA_NAME, system="mana", skills=MANA_SKILLS)
        characters = {}
        for username, (name, concept, traits, maxima) in MANA_CHARACTERS.items():
            membership_join(campaign=campaign, user=users[username])
            character = character_create(
                campaign=campaign, owner=users[username], name=name, concept=concept
            )
            traits_set(character=character, traits=traits)
            mana_set_maxima(character=character, maxima=maxima)
            characters[username] = character
        mana_refill(campaign=campaign)
        skills = {skill.name: skill for skill in campaign.mana_skills.all()}

        session_start(campaign=campaign, by=gm)
        rolls = [
            ("ana", "Gather Information", 2, "Who unloaded the black ship?", (1, 1, 0), {}),
            ("ana", "Jump", 1, "Leap to the moving barge", (1, 1, 0), {}),
            ("ben", "Persuade", 2, "Talk the guard out of the fine", (1, 1, 2), {}),
            ("ben", "Sneak", 1, "Slip past the customs house", (0, 1, 0), {"visibility": PRIVATE}),
        ]
        for username, skill, difficulty, intent, (a, b, colorless), extra in rolls:
            check = check_ask(
                campaign=campaign,
                character=characters[username],
                by=gm,
                target=difficulty,
                mana_skill=skills[skill],
                **extra,
            )
            check_roll_mana(
                check=check,
                by=users[username],
                skill=skills[skill],
                spend_a=a,
                spend_b=b,
                colorless=colorless,
                intent=intent,
            )
        check_ask(
            campaign=campaign,
            character=characters["ana"],
            by=gm,
            target=3,
            mana_skill=skills["Mend"],
            suggestion="Patch up the wounded sailor",
        )
        self.talk(
            campaign,
            users,
            [
                ("ben", "@ana the guard took the bribe, your turn", None),
                ("ana", "I keep the black ship's manifest for myself", "gm"),
                ("ana", "/r 2d6+1 vs 8", None),
            ],
        )
        return campaign

    def talk(self, campaign, users, lines):
        """Table talk in the demo's room (``rolls.talk``): ``lines`` of (username, text,
        whom it is whispered to or None); a text starting with /r is a free roll."""
        gm = users[GM]
        for username, text, to in lines:
            by = users[username]
            if text.startswith("/r "):
                free_roll_make(campaign=campaign, by=by, notation=notation.parse(text[3:]))
                continue
            mentions = [u.pk for name, u in users.items() if f"@{name}" in text]
            recipient = gm if to == GM else users.get(to)
            message_send(campaign=campaign, by=by, text=text, to=recipient, mentions=mentions)

    def pool_campaign(self, users):
        gm = users[GM]
        campaign = campaign_create(user=gm, name=POOL_NAME, system="pool")
        characters = {}
        for username, (name, concept, ratings) in POOL_CHARACTERS.items():
            membership_join(campaign=campaign, user=users[username])
            character = character_create(
                campaign=campaign, owner=users[username], name=name, concept=concept
            )
            for (attribute, skill), value in ratings.items():
                rating_set(rating=rating_of(character, attribute, skill), value=value)
            hp_set(character=character, value=hp_max_of(character))
            characters[username] = character
        ilse, corvin = characters["ana"], characters["ben"]

        for character in characters.values():
            sparetime_grant(character=character, amount=3, by=gm, note="From their history")
        sparetime_delegate(campaign=campaign, player=users["ana"], amount=2, by=gm)
        sparetime_handout(
            campaign=campaign,
            giver=users["ana"],
            character=corvin,
            amount=1,
            targets=[rating_of(corvin, "Combat", "Cut Weapons")],
            note="For saving my life at the ford",
        )

        session_start(campaign=campaign, by=gm)
        rolls = [
            (ilse, ("Strength", "Jump"), 6, "Jump the collapsed bridge"),
            (corvin, ("Combat", "Cut Weapons"), 8, "Cut down the bandit captain"),
            (ilse, ("Trick", "Stealth"), 7, "Creep up on the camp"),
        ]
        for character, (attribute, skill), target, intent in rolls:
            check = check_ask(campaign=campaign, character=character, by=gm, target=target)
            check_roll_pool(
                check=check,
                by=character.owner,
                attribute=rating_of(character, attribute),
                skill=rating_of(character, attribute, skill),
                intent=intent,
            )
        # A shift that waits for the GM, and a check a player asked for.
        check = check_ask(campaign=campaign, character=corvin, by=gm, target=7)
        check_roll_pool(
            check=check,
            by=users["ben"],
            attribute=rating_of(corvin, "MagicXP"),
            skill=rating_of(corvin, "MagicXP", "Heat Spells"),
            shift_d10=1,
            bonus_effect="Set the bandits' tents alight as well",
            intent="Fireball the archers",
        )
        check_request(
            campaign=campaign,
            character=ilse,
            by=users["ana"],
            suggestion="Survival + Orientation",
            note="Find the way back through the fog",
        )
        self.talk(
            campaign,
            users,
            [
                ("gm", "The fog thickens; the camp fires are out.", None),
                ("ben", "/r 4d6kh3", None),
            ],
        )
        return campaign

    def report(self, campaigns):
        self.stdout.write(self.style.SUCCESS("Demo created:"))
        self.stdout.write(f'  users {", ".join([GM, *PLAYERS])} (password "{PASSWORD}")')
        for campaign in campaigns:
            characters = ", ".join(
                f"{c.name} ({c.owner.username})"
                for c in campaign.characters.select_related("owner")
            )
            self.stdout.write(
                f"  {campaign.get_system_display()} campaign #{campaign.pk} {campaign.name!r}: "
                f"characters {characters}; session 1 running; "
                f"rolls: {campaign.log.filter(kind=LogEntry.ROLL).count()}; "
                f"checks waiting: {campaign.checks.filter(status__in=WAITING).count()}"
            )


def demo_exists():
    return Campaign.objects.filter(
        name__in=[MANA_NAME, POOL_NAME],
        memberships__user__username=GM,
        memberships__role=Membership.GM,
    ).exists()
