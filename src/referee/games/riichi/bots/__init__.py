"""Built-in Riichi mahjong bots speaking mjai: ``tsumogiri`` and ``greedy``."""
