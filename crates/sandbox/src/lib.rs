//! The execution boundary: a process backend that builds Linux isolation itself (namespaces, a fresh
//! root, Landlock, seccomp, no capabilities, limits), an OCI backend, and the in-sandbox probe.
