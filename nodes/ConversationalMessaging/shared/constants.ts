export const CREDENTIAL_NAME = 'conversationalMessagingApi';
