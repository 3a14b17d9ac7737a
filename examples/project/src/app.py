def version() -> str:
    return "2.4.0"
