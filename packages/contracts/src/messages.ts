/** Every text of the spec that a user reads (§2, §5, §8), defined once. */
export const messages = {
  required: 'This field is required.',
  invalidEmail: 'Enter a valid e-mail address.',
  passwordTooShort: (min: number) => `The password must be at least ${min} characters long.`,
  passwordsDoNotMatch: 'The passwords do not match.',
  noSpaces: 'Spaces not allowed',
  alphaDashCustom: 'Only alphanumeric, hyphen and underscore characters allowed.',
  sessionRenameHint: 'Only alphanumeric characters and underscores are allowed.',
  uniqueTrialName: 'A trial with this name already exists in the session. Please choose a different name.',
  codeDigits: (digits: number) => `The code has ${digits} digits.`,
  mustAgree: 'You must agree to continue.',
  deleteConfirmMismatch: 'Type your username exactly to confirm.',
  passwordOnlySpaces: 'The password cannot be only spaces.',
  passwordTooLong: (max: number) => `Password is too long: at most ${max} characters.`,
  chooseCountry: 'Choose a country from the list.',
  invalidUrl: 'Enter a valid URL.',
  websiteNotWeb: 'Enter a web address (http or https), such as lab.example.org.',

  // Any field whose value has the wrong type, size or form (the contracts' error map, error-map.ts)
  notText: 'Enter text.',
  notNumber: 'Enter a number.',
  notTrueOrFalse: 'Must be true or false.',
  notList: 'Must be a list.',
  notObject: 'Must be a group of named fields.',
  textTooLong: (max: number) => `At most ${max} characters.`,
  textTooShort: (min: number) => `At least ${min} characters.`,
  numberNotAbove: (min: number) => `Enter a number greater than ${min}.`,
  numberNotBelow: (max: number) => `Enter a number less than ${max}.`,
  tooManyItems: (max: number) => `At most ${max} items.`,
  tooFewItems: (min: number) => `Choose at least ${min}.`,
  chooseOneOf: (values: readonly string[]) => `Choose one of: ${values.join(', ')}.`,
  notMultipleOf: (step: number) => `Enter a multiple of ${step}.`,
  invalidFormat: 'This value is not in the expected form.',
  invalidValue: 'This value is not valid.',
  unknownFields: (names: readonly string[]) => `Unknown field${names.length > 1 ? 's' : ''}: ${names.join(', ')}.`,

  // §5 subject rules
  subjectWeightTooLarge:
    "It seems unlikely that the subject's weight exceeds 200 kg. Please ensure that you are using the correct units. The weight should be specified in kilograms (kg).",
  subjectWeightTooSmall:
    "It seems unlikely that the subject's weight is less than 1 kg. Please ensure that you are using the correct units. The weight should be specified in kilograms (kg).",
  subjectHeightTooLarge:
    "It seems unlikely that the subject's height exceeds 3 m. Please ensure that you are using the correct units. The height should be specified in meters (m).",
  subjectHeightTooSmall:
    "It seems unlikely that the subject's height is less than 0.1 m. Please ensure that you are using the correct units. The height should be specified in meters (m).",
  subjectBirthYearInFuture: "The subject's birth year cannot be set in the future. Please enter a valid birth year.",
  subjectBirthYearTooEarly:
    "It seems unlikely that the subject's birth year predates 1900. Please enter a valid birth year.",
  subjectTagsRequired: "You must add at least one subject tag. For subjects with no conditions, select 'Unimpaired'.",
  subjectTagsNotArray: 'The subject tags must be contained in an array.',
  subjectConsentRequired: 'The subject must provide informed consent.',
  subjectWeightNotNumber: 'Weight must be a number in kilograms.',
  subjectHeightNotNumber: 'Height must be a number in meters.',
  subjectBirthYearNotYear: 'Birth year must be a year, such as 1990.',

  // A subject's share link (Subjects screen, subject menu)
  shareLinkReplaceQuestion: (name: string) =>
    `Do you want to replace the share link of subject ${name}? Everyone holding the current link loses access at once; the links you share from now on carry the new one.`,
  shareLinkCreateQuestion: (name: string) =>
    `Do you want to make a share link for subject ${name}? You share it from an analysis's Share dialog.`,
  shareLinkRevokeQuestion: (name: string) =>
    `Do you want to revoke the share link of subject ${name}? Everyone holding it loses access at once. You can make a new one later from this menu.`,
  shareLinkReplaced: 'New share link made: the previous one no longer opens anything.',
  shareLinkCreated: 'Share link made: share it from an analysis’s Share dialog.',
  shareLinkRevoked: 'Share link revoked: it no longer opens anything.',
  shareLinkNone:
    'This subject has no share link: make one on the Subjects screen (the subject’s menu, Create share link).',

  // §5 names, recording and settings rules
  trialNameReserved: "The names 'calibration' and 'neutral' are reserved. Please choose a different name.",
  trialBusy: "You can't rename a trial while it's being uploaded or processed. Please wait until it has finished.",
  neutralCannotBeRenamed: 'The neutral trial cannot be renamed.',
  filterFrequencyTooLarge: (halfFramerateHz: number) =>
    `Too large filter frequency. Using half the framerate (${halfFramerateHz} Hz) instead.`,
  filterFrequencyInvalid: 'Invalid filter frequency. Using default.',
  tagsNotArray: 'The tags must be contained in an array.',
  sessionNotFound: 'Session not found.',
  trialNotFound: 'Trial not found.',
  subjectNotFound: 'Subject not found.',
  taskNotFound: 'Download task not found.',
  notOwner: 'Only the owner can change this.',

  // §4.2, §4.3, §5, §8 capture and recording
  devicesRequiredForCalibration: (connected: number) =>
    `${connected} device(s) connected to the session and 2+ devices are required, please re-pair your devices using qr code at top of page.`,
  videosMissing: (expected: number, uploaded: number) =>
    `${expected} devices expected and ${uploaded} videos were uploaded. Please reconnect the missing ${expected - uploaded} devices to the session using the QR code at the top of the screen.`,
  camerasConnectionTimeout:
    'Connected cameras do not match calibrated cameras. Timeout while waiting for cameras to connect.',
  noCalibratedCamerasForTrial: 'There are no calibrated cameras for this trial.',
  noCamerasCalibrated: 'No cameras have been calibrated. Please go back and calibrate your cameras.',
  onlyOneCalibratedCamera:
    'There is only 1 calibrated camera, but at least 2 cameras are necessary. Please go back and calibrate your cameras.',
  camerasCalibrated: (count: number) => `${count} devices calibrated successfully.`,
  recordingTimeLimit: 'Recording finished upon reaching time limit',
  trialBeingRecorded: 'The trial is being recorded',
  trialQueued: 'Trial is in the queue to be processed.',
  trialQueuedForReprocessing: 'Trial is in the queue to be reprocessed.',
  trialProcessingError: 'Error in processing, you may want to re-record this trial.',
  videosNotSynchronized: 'Showing uploaded videos (not synchronized).',
  resultNotFound: (tag: string) => `Result with tag "${tag}" not found`,
  neutralHasNoMotion:
    'The neutral pose scales the model to the subject: it has no movement to play. Its images show the pose each camera saw.',
  processing: 'Processing.',
  processingSubjectCanRelax: 'Processing: the subject can relax.',
  anyPoseNotice:
    "Any pose: the subject may hold any still pose in view of every camera (a T-pose, sitting). The model is scaled from the lengths of the segments only, and joint angles are then measured from the model's own zero pose, not from the subject's standing posture.",
  subjectMustAgree: 'The subject must agree to continue!',
  finishedWithError: 'Finished with error',
  neutralProcessingError: 'Error in processing neutral pose',
  captureAppNotice:
    'No app to install: open the camera of each phone, scan the QR code and allow the camera in the page that opens.',
  /** A reason for videoUnreadable. */
  videoFramesTooLarge: (width: number, height: number) =>
    `its frames are ${width} x ${height} pixels, more than 8K (7680 x 4320)`,
  videoUnreadable: (camera: string, reason: string) =>
    `The video from camera ${camera} could not be read (${reason}). Please record this trial again.`,
  trialNotRecording: 'This trial is not waiting for videos.',
  videoAlreadyUploaded: 'This camera has already uploaded its video for this trial.',
  phoneKeypointsNotWanted: 'This trial takes no keypoints from the phones: upload the video alone.',
  phoneKeypointsTooLarge: (maxBytes: number) =>
    `The keypoints are larger than ${Math.round(maxBytes / 1024 ** 2)} MB: upload the video alone.`,
  pairingInvalid: 'This pairing link is no longer valid. Scan the QR code of the session again.',
  recordingInProgress: 'A trial is already being recorded in this session.',

  serverOutOfSpace:
    'The server is out of disk space, so this could not be saved. Please try again later, or ask the server administrator to free some space.',
  importsInProgress: (limit: number) =>
    `You already have ${limit} uploads in progress. Wait until one of them has finished, then send this one again.`,

  networkFailure: 'Could not reach server. Check your internet connection and try again.',
  userInfoFailure: 'Error retrieving user info.',
  userDoesNotExist: (username: string) => `The user "${username}" does not exist.`,
  copyProfileUrlFailure: 'Error while copying profile URL to clipboard',
  profilePictureFailureContext: 'updating profile picture.',
  profileSaveFailureContext: 'updating profile.',

  userCreated: 'New user successfully created',
  profileUpdated: 'Profile updated.',
  profilePictureUpdated: 'Profile picture updated.',
  passwordRecoveryEmailSent: 'Password recovery email sent.',
  passwordChanged: 'Password changed successfully.',
  profileUrlCopied: 'Profile URL copied to clipboard!',
  accountDeleted: 'Your account and all its data have been removed.',
  saved: 'Saved.',
  loggedOut: 'Logged out.',

  invalidCredentials: 'Unable to log in with provided credentials.',
  invalidCode: 'The code is not valid.',
  codeExpired: 'The code has expired. Request a new code.',
  tooManyWrongCodes: 'Too many wrong codes. Request a new code.',
  tooManyAttempts: (waitS: number) => {
    const seconds = Math.max(1, Math.ceil(waitS));
    const wait =
      seconds < 60
        ? `${seconds} second${seconds === 1 ? '' : 's'}`
        : `${Math.ceil(seconds / 60)} minute${seconds <= 60 ? '' : 's'}`;
    return `Too many attempts. Please wait ${wait} and try again.`;
  },
  loginHeldBack:
    'Many wrong passwords were tried for this account, so logins from browsers it does not know are held back for a while. A device you had remembered can log in now; to log in from this one, ask for an unlock link by e-mail.',
  unlockLinkSent:
    'If the account exists, its owner has been e-mailed a link that lets the browser opening it log in. Open it in this browser.',
  invalidUnlockLink: 'This unlock link is invalid, used or has expired. Ask for a new one on the login page.',
  browserUnlocked: (username: string) =>
    `This browser may now log in to ${username}, whatever wrong passwords others try: the account remembers it for 90 days, and it needs no e-mailed code.`,
  invalidResetLink: 'This password reset link is invalid or has expired. Request a new one.',
  notAuthenticated: 'Authentication credentials were not provided or have expired.',
  notVerified: 'Enter the code sent to your e-mail to continue.',
  readOnlyToken: 'This token is read-only: create a read-write token on your Profile page to make changes.',
  browserLoginOnly: 'Personal API tokens cannot do this: log in with your password and e-mailed code.',
  personalTokensMax: (max: number) => `You have ${max} personal API tokens. Revoke one before creating another.`,
  personalTokenCreated: 'Copy this token now: it will not be shown again.',
  personalTokenRevoked: 'Token revoked.',
  personalTokenNotFound: 'No such token: it may have been revoked already.',
  notFound: 'Not found.',
  usernameTaken: 'A user with that username already exists.',
  emailTaken: 'A user with that e-mail address already exists.',
  pictureNotImage: 'The file is not an image. Choose a JPEG, PNG, GIF or WebP picture.',
  pictureTooLarge: (maxMb: number) => `The picture is larger than ${maxMb} MB.`,
  pictureTooManyPixels: (maxMegapixels: number) =>
    `The picture has more than ${maxMegapixels} megapixels. Choose a smaller picture.`,
  licenseNotPermitted:
    'This use is not a permitted use of this software. If you want to use it for this purpose, please contact the provider to purchase a license.',
  licensePreviousNotPermitted:
    'Your previous answer was a use that is not permitted without a license. Please confirm how you use this software.',
} as const;
