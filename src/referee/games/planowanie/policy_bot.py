"""A trained policy as a Planowanie player: ``referee bot planowanie --policy
module:callable``.

The player keeps a mirror of the environment's engine (``env.EnvPlanowanieGame``), driven
by the protocol's commands: the rules from ``set_deck``/``set_players``/``set_game``, its
own cards from ``set_cards``, every declaration once revealed (``declare``), every card
(``play``). The other seats' cards are not known: the mirror gives them none, which
changes nothing for this seat (its observation and mask read only its own hand). At
``gen_declare`` the seats that declared before it have done so in secret: a copy of the
mirror gets placeholder declarations for them (hidden from this seat, as in the
environment), so that the seat is the one to play. The policy then sees exactly what the
environment shows the seat (``observe``, ``legal_mask``).

The answer is the policy's action number as the protocol says it: a declaration as a
number, a card by its name. An action the mask forbids is sent as it is, for the referee
to judge (an illegal move): a number of tricks the deal does not allow, a card not in the
hand or not following suit, a card while declaring (sent as ``card_<name>``, no number of
tricks) or a declaration while playing (``declare_<n>``, no card).
"""

from __future__ import annotations

from typing import TextIO

from referee.core.policy import Policy, ask
from referee.games.planowanie.bots.player import ProtocolLoop, serve
from referee.games.planowanie.env import EnvPlanowanieGame, PlanowanieEnvGame
from referee.games.planowanie.rules import Declare, Rules, mask_of

__all__ = ["NAME", "PolicyPlayer", "run_policy"]

NAME = "planowanie-policy"


class PolicyPlayer(ProtocolLoop):
    """The protocol loop of a player whose decisions are ``policy``'s (see the module)."""

    def __init__(self, policy: Policy, name: str = NAME, version: str = "1") -> None:
        super().__init__(name, version)
        self.policy = policy
        self.game: PlanowanieEnvGame | None = None
        self.mirror: EnvPlanowanieGame | None = None
        self.revealed: dict[int, int] = {}
        """The declarations told so far (``declare``), applied once all have come."""

    def _mirror(self) -> tuple[PlanowanieEnvGame, EnvPlanowanieGame]:
        self._view()  # the same error as the other commands before set_game
        assert self.game is not None and self.mirror is not None
        return self.game, self.mirror

    def cmd_set_game(self, args: list[str]) -> str:
        """``set_game d c1 s1 ...``: a new game, and a new mirror of its rules."""
        answer = super().cmd_set_game(args)
        rules: Rules = self._view().rules
        if self.game is None or self.game.rules != rules:
            self.game = PlanowanieEnvGame(rules)
        deals = [[0] * rules.players for _ in rules.deals]
        self.mirror = EnvPlanowanieGame(self.game.layout, 0, deals)
        self.revealed = {}
        return answer

    def cmd_set_cards(self, args: list[str]) -> str:
        """``set_cards c K1 ... Kc``: this seat's hand of the deal, in the mirror too."""
        answer = super().cmd_set_cards(args)
        _, mirror = self._mirror()
        hand = mask_of([self._card(name) for name in args[1:]])
        mirror.deals[mirror.table.deal][self.seat] = hand
        mirror.hands[self.seat] = hand
        mirror.rebuild()
        return answer

    def cmd_declare(self, args: list[str]) -> str:
        """``declare i l``; once every seat's is told, they are played in the mirror in
        the order they were made."""
        answer = super().cmd_declare(args)
        _, mirror = self._mirror()
        self.revealed[int(args[0])] = int(args[1])
        players = mirror.rules.players
        if len(self.revealed) == players:
            starter = mirror.table.starter
            for k in range(players):
                seat = (starter + k) % players
                mirror.apply(seat, Declare(self.revealed[seat]))
            self.revealed = {}
        return answer

    def cmd_play(self, args: list[str]) -> str:
        """``play i K``: the card, in the mirror too."""
        answer = super().cmd_play(args)
        _, mirror = self._mirror()
        mirror.apply(int(args[0]), self._card(args[1]))
        return answer

    def cmd_gen_declare(self, args: list[str]) -> str:
        """``gen_declare``: the policy's action, as a number of tricks."""
        game, mirror = self._mirror()
        position = mirror.copy()
        table, players = position.table, position.rules.players
        for k in range(players):  # the seats before this one have declared, unseen
            seat = (table.starter + k) % players
            if seat == self.seat:
                break
            position.apply(seat, Declare(0))
        index = self._ask(game, position)
        if index <= game.max_cards:
            return str(index)
        return "card_" + self.deck.name(index - game.max_cards - 1)

    def cmd_gen_move(self, args: list[str]) -> str:
        """``gen_move``: the policy's action, as a card's name."""
        game, mirror = self._mirror()
        index = self._ask(game, mirror)
        if index <= game.max_cards:
            return f"declare_{index}"
        return self.deck.name(index - game.max_cards - 1)

    def observation(self, position: EnvPlanowanieGame | None = None) -> dict[str, object]:
        """What the environment shows this seat at ``position`` (the mirror by default)."""
        game, mirror = self._mirror()
        if position is None:
            position = mirror
        return {"observation": game.observe(position, self.seat),
                "action_mask": game.legal_mask(position, self.seat)}

    def _ask(self, game: PlanowanieEnvGame, position: EnvPlanowanieGame) -> int:
        return ask(self.policy, self.observation(position), game.actions)


def run_policy(policy: Policy, name: str = NAME, stdin: TextIO | None = None,
               stdout: TextIO | None = None) -> int:
    """Answer protocol commands with ``policy`` until ``quit`` or the end of input;
    ``PolicyError`` if the policy fails."""
    return serve(PolicyPlayer(policy, name), stdin, stdout)
