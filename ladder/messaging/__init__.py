"""Messages to the workers: tasks sent by name after the commit, and what the broker holds."""
