"""Where responses and conversations live: one interface, three backends.

* :mod:`.base` — the interfaces (:class:`~reference_impl.stores.base.ResponseStore`,
  ``ItemLookup``, ``ConversationStore``), ``StoreLimits`` and the default caps;
* :mod:`.memory` — :class:`~reference_impl.stores.memory.MemoryStore`, bounded (LRU + TTL), the
  default;
* :mod:`.sqlite` — :class:`~reference_impl.stores.sqlite.SQLiteStore`, one durable file;
* :mod:`.redis` — :class:`~reference_impl.stores.redis.RedisStore`, shared by several replicas;
* :mod:`.options` — the ``--store*`` flags ``responses-mock`` and ``responses-reference`` share,
  and the store a spec names (``make_store``).
"""
