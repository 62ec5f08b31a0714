/** The operations users run over many items: they go through the send loop (../engine/sendLoop.ts); the others RoutingNode runs from their routing. */
export const BULK_OPERATIONS: Record<string, string[]> = {
	contact: ['add'],
	legacyMessage: ['send'],
	liveChat: ['sendMessage'],
	messaging: ['checkChatappNumber', 'injectCrmLead', 'sendSms', 'sendSocialnet'],
};
