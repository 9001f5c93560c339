"""The Kombu transports the workers' broker runs on, each a small change of Kombu's own: ``filesystem``
(the embedded default, a folder of message files) and ``redis_queues`` (Redis, the queues taken in the
settings' order)."""
