"""What watches a match from outside it, never slowing it: the feed to the page process, the page
process's start, and the Prometheus metrics."""
