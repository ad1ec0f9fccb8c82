#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
