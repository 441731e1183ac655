/* annotations-on.c without its annotations (t_annotations.sh): the
 * counter's, the flag's and the message's races are all reported. */
#define NO_ANNOTATIONS 1
#include "annotations-on.c"
