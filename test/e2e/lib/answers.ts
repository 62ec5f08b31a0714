import type { Sandbox } from '../../../sandbox/server';

/** The link at the end of a Send and Wait message ("... Answer here: <link>"). */
export function answerLinkIn(body: string): string {
	const link = /Answer here: (\S+)$/.exec(body)?.[1];
	if (!link) throw new Error(`No link in: ${body}`);
	return link;
}

/** Where a link leads: a short link's target from the sandbox's record, else the link itself. */
export function linkTarget(sandbox: Sandbox, link: string): string {
	return (
		[...sandbox.state.shortLinks.values()].find((short) => short.shortUrl === link)?.longUrl ?? link
	);
}
