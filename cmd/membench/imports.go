package main

// Every plug-in, so that the CLI knows every strategy, allocator and
// workload family.
import _ "membench/plugins"
