#include <stddef.h>
#include <spng.h>
