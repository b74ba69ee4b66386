/*
 * supervisor-poll: one reconciliation tick (filled in by later work).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	return 0;
}
