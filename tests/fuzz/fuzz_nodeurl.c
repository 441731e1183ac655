/*
 * fuzz_nodeurl.c - libFuzzer target for node URLs and names
 * (db_node_url_parse, db_node_name_ok: db/nodes.h; what remote/ hands to
 * ssh as separate words).
 *
 * The input is the URL (and the name), NUL-terminated. A refusal must
 * say why. What is accepted must keep the promise of nodes.h: user, host
 * and path of word characters (and '/' in the path) only, none starting
 * with '-', a port that fits, and the URL written back from the parts
 * parses to the same parts.
 */
#include "tests/fuzz/fuzz_util.h"

#include "db/nodes.h"

static void safe(const char *what, const char *s, bool slash)
{
	if (s[0] == '-')
		fuzz_fail("the %s '%s' starts with '-'", what, s);
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-' || (slash && c == '/')))
			fuzz_fail("the %s '%s' has byte 0x%02x", what, s,
				  (unsigned char)c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static db_node_url u, v;
	static char again[4 * DB_NODE_URL_MAX];
	char *s, msg[512];

	if (size > 2 * DB_NODE_URL_MAX)
		return 0;
	if (!(s = malloc(size + 1)))
		fuzz_fail("out of memory");
	memcpy(s, data, size);
	s[size] = '\0';
	msg[0] = '\0';
	if (db_node_name_ok(s, msg, sizeof msg)) {
		size_t n = strlen(s);
		if (!n || n > DB_NODE_NAME_MAX)
			fuzz_fail("a name of %zu bytes is accepted", n);
		safe("name", s, false);
	} else if (!msg[0]) {
		fuzz_fail("a name is refused without a reason");
	}
	msg[0] = '\0';
	if (!db_node_url_parse(s, &u, msg, sizeof msg)) {
		if (!msg[0])
			fuzz_fail("a URL is refused without a reason");
		free(s);
		return 0;
	}
	if (!u.host[0] || !u.path[0] || u.port > 65535)
		fuzz_fail("accepted with host '%s', path '%s', port %u", u.host,
			  u.path, u.port);
	safe("user", u.user, false);
	safe("host", u.host, false);
	safe("path", u.path, true);
	snprintf(again, sizeof again, "ssh://%s%s%s", u.user,
		 u.user[0] ? "@" : "", u.host);
	if (u.port)
		snprintf(again + strlen(again), sizeof again - strlen(again),
			 ":%u", u.port);
	snprintf(again + strlen(again), sizeof again - strlen(again), "%s%s",
		 u.path[0] == '/' ? "" : "/", u.path);
	if (!db_node_url_parse(again, &v, msg, sizeof msg))
		fuzz_fail("'%s' rebuilt from '%s' is refused: %s", again, s,
			  msg);
	if (strcmp(u.user, v.user) || strcmp(u.host, v.host) ||
	    u.port != v.port || strcmp(u.path, v.path))
		fuzz_fail("'%s' rebuilt from '%s' parses differently", again,
			  s);
	free(s);
	return 0;
}
