"""Play: matches claimed by the workers, their results recorded, old logs pruned."""
