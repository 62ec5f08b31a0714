/** Plain HTML, every value escaped, no script. */
export interface PageContent {
	question: string;
	responseType: 'approval' | 'freeText';
	approveLabel: string;
	declineLabel?: string;
}

const escapeHtml = (text: string) =>
	text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
p.question{white-space:pre-wrap;font-size:1.1rem}button{font-size:1rem;padding:.6rem 1.4rem;margin:.3rem .6rem .3rem 0;border-radius:.4rem;border:1px solid #555;cursor:pointer}
button.approve{background:#1f6feb;color:#fff;border-color:#1f6feb}textarea{width:100%;min-height:8rem;font:inherit}`;

const page = (title: string, body: string) =>
	`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

/** No form action: it posts to the address it was opened at, signature included. */
export function questionPage(content: PageContent): string {
	const decline = content.declineLabel
		? `<button type="submit" name="decision" value="decline">${escapeHtml(content.declineLabel)}</button>`
		: '';
	const answer =
		content.responseType === 'freeText'
			? '<textarea name="text" required aria-label="Your answer"></textarea><p><button class="approve" type="submit">Send</button></p>'
			: `<button class="approve" type="submit" name="decision" value="approve">${escapeHtml(content.approveLabel)}</button>${decline}`;
	return page(
		'Your answer',
		`<p class="question">${escapeHtml(content.question)}</p><form method="post">${answer}</form>`,
	);
}

export const ANSWERED_PAGE = page(
	'Answer recorded',
	'<p>Thank you: your answer was recorded. You can close this page.</p>',
);
