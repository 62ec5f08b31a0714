// n8n's logger prints every node error; the tests assert on them instead.
process.env.N8N_LOG_LEVEL = 'silent';
