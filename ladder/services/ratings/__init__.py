"""What results add up to: ratings, pair records, tournament tables; the collusion screen."""
