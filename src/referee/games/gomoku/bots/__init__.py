"""Built-in Gomocup brains, each runnable on its own as a pbrain-* program."""
