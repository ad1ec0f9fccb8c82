#ifndef C_CHILD_PROCESS_H
#define C_CHILD_PROCESS_H

#include <spawn.h>

/// Adds to `actions` the closing of every descriptor from `lowest` up in the child (glibc 2.34 and later).
/// A wrapper because glibc declares the call only for GNU sources, which Swift's Glibc module is not.
int webimage_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
