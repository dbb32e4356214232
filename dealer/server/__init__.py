"""The ACPC dealer: a match's rules, its drivers (blocking sockets and trio), the seats' connections, the
``.log`` and ``.tlog`` files, the console and the structured events."""
