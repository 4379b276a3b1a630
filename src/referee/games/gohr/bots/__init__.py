"""Built-in GOHR players that speak the captive server's protocol on standard input and
output, as a program the server plays (a web table's seat): ``random_bot``, ``learner_bot``."""
