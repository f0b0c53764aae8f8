/** Every file of a user lives under this prefix, so deleting the account removes them all. */
export const userFilesPrefix = (userId: number) => `users/${userId}`;
/** Where a session's files live in the file store; removing the session's tree removes them all. */
export const sessionFilesPrefix = (sessionId: string) => `sessions/${sessionId}`;
export const trialFilesPrefix = (sessionId: string, trialId: string) =>
  `${sessionFilesPrefix(sessionId)}/trials/${trialId}`;
export const downloadFilesPrefix = (taskId: string) => `downloads/${taskId}`;
