"""Never answers: sleeps."""
import time


def act(observation, legal_actions):
    time.sleep(10**6)
