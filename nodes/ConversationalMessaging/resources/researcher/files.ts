import type { INodeProperties } from 'n8n-workflow';

import { checkField, normaliseUrl, requireField } from '../../checks/checks';
import type { Field, FieldSpec } from '../../form/fields';
import { field, optionsOf } from '../../form/fields';

export const RESEARCHER_FILE_TYPES = ['audio', 'document', 'photo', 'url', 'video'];

/** Each entry becomes one {url, name, type} object of the `files` list. */
const fileEntryValue = (spec: Omit<FieldSpec, 'sendTo' | 'checks'>): INodeProperties => ({
	...field(spec),
	routing: { send: { type: 'body', property: `=files[{{$index}}].${spec.name}` } },
});

const checkFiles = checkField('body.files', 'Files', (value, fail) => {
	const files = Array.isArray(value)
		? value
		: fail('expected a list of files', 'Add files with Add File.');
	return files.map((file: { url?: unknown; name?: unknown; type?: unknown }, index: number) => {
		const label = (problem: string, fix: string) => fail(`file ${index + 1}: ${problem}`, fix);
		if (!String(file.url ?? '').trim())
			label('has no URL', 'Enter the URL of every file, or remove the file.');
		if (!RESEARCHER_FILE_TYPES.includes(String(file.type)))
			label(
				`type "${String(file.type)}" is not one of ${RESEARCHER_FILE_TYPES.join(', ')}`,
				'Pick a type from the list.',
			);
		const name = String(file.name ?? '').trim();
		if (!name) label('has no name', 'Enter a Name for every file; the service needs one.');
		return { url: normaliseUrl(file.url, label), name, type: file.type };
	});
});

export function researcherFilesField(name: string): Field {
	return {
		displayName: 'Files',
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add File',
		required: true,
		// One entry to start from: the editor marks its URL and Name required (a fixed collection gets no mark of its own).
		default: { file: [{ url: '', name: '', type: 'document' }] },
		description:
			'Documents, media or web pages for the researcher to investigate: at least one, each with its URL and Name',
		// A fixed collection has no value of its own to send; its entries fill body.files.
		sent: { checks: [requireField('body.files', 'Files'), checkFiles] },
		options: [
			{
				displayName: 'File',
				name: 'file',
				values: [
					fileEntryValue({
						displayName: 'URL',
						name: 'url',
						required: true,
						placeholder: 'https://example.com/report.pdf',
						description: 'Web address of the file, or of the web page when Type is URL',
					}),
					fileEntryValue({
						displayName: 'Name',
						name: 'name',
						required: true,
						description: 'Name of the file, as the researcher refers to it',
					}),
					fileEntryValue({
						displayName: 'Type',
						name: 'type',
						type: 'options',
						options: optionsOf([
							['Audio', 'audio', 'A sound file'],
							['Document', 'document', 'A PDF, text or office file'],
							['Photo', 'photo', 'An image'],
							['URL (Web Page)', 'url', 'A web page, read as the researcher finds it'],
							['Video', 'video', 'A video file'],
						]),
						default: 'document',
						description: 'Kind of file',
					}),
				],
			},
		],
	};
}
