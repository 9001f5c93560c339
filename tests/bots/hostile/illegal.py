"""Answers an action that is not legal."""


def act(observation, legal_actions):
    return {"not": "an action"}
