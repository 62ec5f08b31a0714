/** Run over many items by the send loop; RoutingNode runs the others. */
export const BULK_OPERATIONS: Record<string, string[]> = {
	contact: ['add'],
	legacyMessage: ['send'],
	liveChat: ['sendMessage'],
	messaging: ['checkChatappNumber', 'injectCrmLead', 'sendSms', 'sendSocialnet'],
};
