"""A King of the Dice bot that rolls toward the most valuable card it can hope to claim.

It reads everything from the observation (see the ``engines.dice_king`` docstring for its fields) and
needs nothing but the standard library:

* ``roll``: for each display card, decide which dice to keep with a simple rule per condition kind (keep
  the colour a ``COLOR`` card wants, the window of a ``STRAIGHT``, the most frequent values of a ``SETS``,
  high dice for a ``SUM`` ...), estimate by a few simulated re-rolls how likely the card is to be met, and
  chase the card with the best value x chance. Stop when the dice already give at least that much.
* ``claim``: claim the most valuable claimable card, but first spend a joker pair if the extra die makes a
  more valuable card claimable. With nothing claimable, take dragon alarm and remove the card that is
  worth most (it would otherwise go to an opponent).
* ``place``, ``tame``, ``brawl``: take the option that raises our score most (largest area x 3, other
  fields x 1, gems), and for the brawler also hurts the victim most.
* ``steal``: always steal: gold before white, from the leader; a card whose joker die pairs with ours.
* ``alarm_field``: put the blocking tile where it touches none of our fields; ``fire_from``: take from
  the seat with the most fires.
"""

import random
import re

# What claiming a card of each effect is worth to us, in rough points (a field is 3 in a good area).
EFFECT_VALUE = {
    "DWARF": 3.0, "THIEF_CARD": 4.0, "THIEF_GEM": 5.0, "TAMER": 6.0, "BRAWLER": 5.5, "LANDOWNER": 7.5,
}
DWARF_TIER_BONUS = 1.5  # each dwarf tier beyond the first: one more tile to choose from, 3 tiers a gem
GEM_POINTS = {"gold": 3, "white": 2}
SAMPLES = 10  # simulated re-roll sequences per candidate card


# --- conditions: the grammar of the rules, section 4 ------------------------------------------------------

ATOM = re.compile(r"([A-Z]+)\(([^()]*)\)")


def parse(text):
    """``"ALL(COLOR(B,3),STRAIGHT(4))"`` -> ``("ALL", [("COLOR", ["B", "3"]), ("STRAIGHT", ["4"])])``."""
    text = text.replace(" ", "")
    kind = "ATOM"
    for outer in ("ALL", "TIERS"):
        if text.startswith(outer + "("):
            kind, text = outer, text[len(outer) + 1:-1]
    atoms = [(name, args.split(",")) for name, args in ATOM.findall(text)]
    return kind, atoms


def atom_holds(atom, dice):
    """Whether one atom holds for ``dice``, a list of (colour, value)."""
    name, args = atom
    if name == "COLOR":
        return sum(1 for c, _ in dice if c == args[0]) >= int(args[1])
    if name == "VALUE":
        return sum(1 for _, v in dice if v == int(args[0])) >= int(args[1])
    if name == "SETS":
        counts = sorted((sum(1 for _, v in dice if v == x) for x in range(1, 7)), reverse=True)
        needs = sorted((int(k) for k in args), reverse=True)
        return all(have >= need for have, need in zip(counts, needs))
    if name == "SUM":
        return sum(v for _, v in dice) >= int(args[0])
    if name == "SUMC":
        return sum(v for c, v in dice if c == args[0]) >= int(args[1])
    if name == "ORDER":
        red, blue, green = (sum(v for c, v in dice if c == colour) for colour in "RBG")
        return red > blue > green
    if name == "STRAIGHT":
        values = {v for _, v in dice}
        n = int(args[0])
        return any(all(a + i in values for i in range(n)) for a in range(1, 8 - n))
    return False


def tiers_met(condition, dice):
    """Atoms met for a ``TIERS`` card, else 1 if the condition holds and 0 if not."""
    kind, atoms = condition
    if kind == "TIERS":
        return sum(1 for atom in atoms if atom_holds(atom, dice))
    return 1 if all(atom_holds(atom, dice) for atom in atoms) else 0


# --- which dice to keep when chasing one card --------------------------------------------------------------


def keep_for_atom(atom, dice):
    """The indices of ``dice`` worth keeping for ``atom`` (the rest are re-rolled)."""
    name, args = atom
    if name == "COLOR":
        return {i for i, (c, _) in enumerate(dice) if c == args[0]}
    if name == "VALUE":
        return {i for i, (_, v) in enumerate(dice) if v == int(args[0])}
    if name == "SETS":
        counts = [0] * 7
        for _, v in dice:
            counts[v] += 1
        by_count = sorted(range(1, 7), key=lambda x: (counts[x], x), reverse=True)
        wanted = set(by_count[:len(args)])
        return {i for i, (_, v) in enumerate(dice) if v in wanted}
    if name == "SUM":
        return {i for i, (_, v) in enumerate(dice) if v >= 4}
    if name == "SUMC":
        # A re-rolled die adds about 2.3 pips of a given colour on average, so keep 3 and more.
        return {i for i, (c, v) in enumerate(dice) if c == args[0] and v >= 3}
    if name == "ORDER":
        return {i for i, (c, v) in enumerate(dice) if c == "R" or (c == "B" and v <= 4)}
    if name == "STRAIGHT":
        n = int(args[0])
        present = {v for _, v in dice}
        best = max(range(1, 8 - n), key=lambda a: sum(1 for x in range(a, a + n) if x in present))
        keep, taken = set(), set()
        for i, (_, v) in enumerate(dice):
            if best <= v < best + n and v not in taken:
                keep.add(i)
                taken.add(v)
        return keep
    return set(range(len(dice)))


def keep_for(condition, dice):
    kind, atoms = condition
    if kind == "TIERS":
        return keep_for_atom(atoms[-1], dice)  # aim for the complete condition
    keep = set()
    for atom in atoms:
        keep |= keep_for_atom(atom, dice)
    return keep


# --- the map -------------------------------------------------------------------------------------------------


def field_points(owner, neighbours, seat):
    """3 per field of our largest area, 1 per other field we own."""
    mine = [f for f, o in enumerate(owner) if o == seat]
    if not mine:
        return 0
    seen, largest = set(), 0
    for start in mine:
        if start in seen:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            here = stack.pop()
            size += 1
            for there in neighbours[here]:
                if owner[there] == seat and there not in seen:
                    seen.add(there)
                    stack.append(there)
        largest = max(largest, size)
    return 3 * largest + (len(mine) - largest)


class Bot:
    def __init__(self, game, seat, players, options):
        self.seat = seat
        self.rng = random.Random(1000 + seat)
        self.conditions = {}

    # --- helpers reading the observation -------------------------------------------------------------------

    def condition(self, text):
        if text not in self.conditions:
            self.conditions[text] = parse(text)
        return self.conditions[text]

    def card_value(self, obs, entry, tiers=1):
        effect = entry["effect"]
        value = EFFECT_VALUE[effect]
        if effect == "DWARF":
            value += DWARF_TIER_BONUS * (tiers - 1)
        # A tamer without a fire or a brawler without a victim does nothing but adds a joker card.
        no_fire = effect == "TAMER" and not any(f["fire"] for f in obs["map"])
        no_victim = effect == "BRAWLER" and not any(f["owner"] not in (None, self.seat) for f in obs["map"])
        if no_fire or no_victim:
            value = 1.0
        return value

    def best_claim_value(self, obs, dice):
        """The value of the best display card that ``dice`` meet (0 if none)."""
        best = 0.0
        for entry in obs["display"]:
            if entry["card"] is None:
                continue
            met = tiers_met(self.condition(entry["condition"]), dice)
            if met:
                best = max(best, self.card_value(obs, entry, met))
        return best

    @staticmethod
    def natural(obs):
        return [(d["colour"], d["value"]) for d in obs["turn"]["dice"]]

    # --- decisions ------------------------------------------------------------------------------------------

    def act(self, observation, legal_actions):
        phase = observation["phase"]
        if phase == "roll":
            return self.roll(observation, legal_actions)
        if phase == "claim":
            return self.claim(observation, legal_actions)
        if phase in ("place", "tame", "brawl"):
            return max(legal_actions, key=lambda a: self.map_gain(observation, a))
        if phase == "steal":
            return max(legal_actions, key=lambda a: self.steal_value(observation, a))
        if phase == "alarm_field":
            return min(legal_actions, key=lambda a: self.touches_us(observation, a["alarm_field"]))
        if phase == "fire_source":
            return max(legal_actions, key=lambda a: observation["seats"][a["fire_from"]]["fires"])
        return legal_actions[0]

    def roll(self, obs, legal):
        if len(legal) == 1:
            return legal[0]
        dice = self.natural(obs)
        rolls_left = 3 - obs["turn"]["rolls_made"]
        table = obs["dice_table"]
        stop_value = self.best_claim_value(obs, dice)
        best_value, best_reroll = stop_value, None
        for entry in obs["display"]:
            if entry["card"] is None:
                continue
            condition = self.condition(entry["condition"])
            keep = keep_for(condition, dice)
            reroll = [i for i in range(6) if i not in keep]
            if not reroll:
                continue
            expected = 0.0
            for _ in range(SAMPLES):
                trial = list(dice)
                dice_to_roll = reroll
                for left in range(rolls_left, 0, -1):
                    for i in dice_to_roll:
                        value = 1 + int(self.rng.random() * 6)
                        trial[i] = (table[i][value - 1], value)
                    if left == 1:
                        break
                    met = tiers_met(condition, trial)
                    if met and (condition[0] != "TIERS" or met == 3):
                        break
                    dice_to_roll = [i for i in range(6) if i not in keep_for(condition, trial)]
                    if not dice_to_roll:
                        break
                met = tiers_met(condition, trial)
                if met:
                    expected += self.card_value(obs, entry, met)
            expected /= SAMPLES
            if expected > best_value:
                best_value, best_reroll = expected, reroll
        if best_reroll is None:
            return {"stop": True}
        action = {"reroll": best_reroll}
        return action if action in legal else {"stop": True}

    def claim(self, obs, legal):
        dice = self.natural(obs) + [(d["colour"], d["value"]) for d in obs["turn"]["virtual_dice"]]
        display = {entry["stack"]: entry for entry in obs["display"] if entry["card"] is not None}
        claims = [a for a in legal if "claim" in a]

        def claim_value(action, with_dice):
            entry = display[action["claim"]]
            met = max(1, tiers_met(self.condition(entry["condition"]), with_dice))
            return self.card_value(obs, entry, met)

        current = max((claim_value(a, dice) for a in claims), default=0.0)
        # A joker is worth spending if the extra die makes a clearly better card claimable.
        cost = {"pair": 1.0, "mixed": 1.2, "super": 1.5}
        best_joker, best_gain = None, 0.0
        for action in legal:
            if "joker" not in action:
                continue
            colour, value, kind = action["joker"]
            more = dice + [(colour, value)]
            gain = self.best_claim_value(obs, more) - current - cost[kind]
            if gain > best_gain:
                best_joker, best_gain = action, gain
        if best_joker is not None:
            return best_joker
        if claims:
            return max(claims, key=lambda a: claim_value(a, dice))
        alarms = [a for a in legal if "alarm" in a]
        if alarms:
            return max(alarms, key=lambda a: self.card_value(obs, display[a["alarm"]]))
        return legal[0]

    def map_gain(self, obs, action):
        """Our score change (and, for a brawl, the victim's loss) if the action's field becomes ours."""
        kind, argument = next(iter(action.items()))
        field = argument[1] if kind == "place" else argument
        owner = [f["owner"] if f["owner"] is not None else -1 for f in obs["map"]]
        neighbours = [f["neighbours"] for f in obs["map"]]
        before = field_points(owner, neighbours, self.seat)
        victim = owner[field]
        victim_before = field_points(owner, neighbours, victim) if victim >= 0 else 0
        owner[field] = self.seat
        gain = field_points(owner, neighbours, self.seat) - before
        if victim >= 0:
            gain += victim_before - field_points(owner, neighbours, victim)
        gem = obs["map"][field]["gem"]
        return gain + (GEM_POINTS[gem] if gem else 0)

    def steal_value(self, obs, action):
        if "pass" in action:
            return -1.0
        victim = obs["seats"][next(iter(action.values()))[0]]
        leader_bonus = victim["score_now"] / 100.0
        if "steal_gem" in action:
            return GEM_POINTS[action["steal_gem"][1]] + leader_bonus
        card = next(c for c in victim["front_cards"] if c["card"] == action["steal_card"][1])
        ours = [c["joker"] for c in obs["seats"][self.seat]["front_cards"]]
        return (2.0 if card["joker"] in ours else 1.0) + leader_bonus

    def touches_us(self, obs, field):
        return sum(1 for n in obs["map"][field]["neighbours"] if obs["map"][n]["owner"] == self.seat)
