"""The clients' side of the judge: the catalogue of what real clients send
(:mod:`.captured_flows`, data in ``captured/``), replayed by the client profiles."""
