import {
  AUGMENTER_MODELS,
  DEFAULT_FRAMERATE,
  OPENSIM_MODELS,
  PHONE_KEYPOINTS_CHOICES,
  POSE_MODELS,
  POSE_RATES,
  SCALING_SETUPS,
  clampFilterFrequency,
  type SettingChoices,
} from '@kinetrace/contracts';
import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { optionsOf } from '../../components/select-options.ts';
import { toast } from '../../components/toasts.tsx';

export interface AdvancedSettings {
  scaling_setup: keyof typeof SCALING_SETUPS;
  pose_model: keyof typeof POSE_MODELS;
  framerate: number;
  openSimModel: keyof typeof OPENSIM_MODELS;
  augmenter_model: keyof typeof AUGMENTER_MODELS;
  /** 'default' or Hz, as typed. */
  filter_frequency: string;
  phone_keypoints: keyof typeof PHONE_KEYPOINTS_CHOICES;
  pose_rate: keyof typeof POSE_RATES;
}

type SettingChoice = SettingChoices[keyof SettingChoices][number];

/** A choice as the list names it: the spec's name and what this server runs for it (issue 21). */
const choiceLabel = (choice: SettingChoice) =>
  `${choice.label} — ${choice.installed ? '' : 'not installed, '}runs ${choice.runs}`;

/** The options of a processing setting: with what each runs once the server said, the spec's names until then. */
const choiceOptions = (choices: readonly SettingChoice[] | undefined, names: Record<string, string>) =>
  choices ? choices.map((choice) => ({ value: choice.value, label: choiceLabel(choice) })) : optionsOf(names);

/** The chosen option's line below its field: what processing will run, in a sentence. */
function runsLine(choices: readonly SettingChoice[] | undefined, value: string): string | undefined {
  const choice = choices?.find((candidate) => candidate.value === value);
  if (!choice) return undefined;
  return choice.installed
    ? `Processing runs ${choice.runs}.`
    : `Not installed on this server: processing runs ${choice.runs} instead.`;
}

/**
 * §2.11 Advanced Settings: scaling setup, pose model, frame rate (only those the server records at),
 * musculoskeletal model, marker augmenter and filter frequency, clamped to half the frame rate (§5).
 * The pose model, model and augmenter say what each choice runs on this server (`choices`, issue 21); phone
 * keypoints (issue 24) say when the server takes none; the pose detection rate (issue 24) what each rate costs.
 */
export function AdvancedSettingsDialog({
  settings,
  framerates,
  choices,
  phoneKeypointsAllowed,
  onClose,
  onSave,
}: {
  settings: AdvancedSettings;
  framerates: readonly number[];
  /** What each processing choice runs here (get_session_settings); the spec's names alone until it is loaded. */
  choices: SettingChoices | undefined;
  /** Whether this server takes keypoints from the phones at all (its operator's PHONE_KEYPOINTS); undefined until known. */
  phoneKeypointsAllowed: boolean | undefined;
  onClose: () => void;
  onSave: (settings: AdvancedSettings) => void;
}) {
  const [draft, setDraft] = useState(settings);
  const offered = framerates.length > 0 ? framerates : [DEFAULT_FRAMERATE];
  const set = (change: Partial<AdvancedSettings>) => setDraft((current) => ({ ...current, ...change }));

  /** A frequency checked against a frame rate: clamped or reset with the spec's warning. */
  const clamped = (filterFrequency: string, framerate: number) => {
    const decision = clampFilterFrequency(filterFrequency, framerate);
    if (decision.warning) toast.warning(decision.warning);
    return String(decision.value);
  };

  return (
    <Modal opened onClose={onClose} title="Advanced Settings" centered size="lg">
      <Stack>
        <Select
          label="Scaling setup"
          data={optionsOf(SCALING_SETUPS)}
          value={draft.scaling_setup}
          onChange={(value) => value && set({ scaling_setup: value as AdvancedSettings['scaling_setup'] })}
          allowDeselect={false}
        />
        <Select
          label="Pose model"
          data={choiceOptions(choices?.pose_model, POSE_MODELS)}
          description={runsLine(choices?.pose_model, draft.pose_model)}
          value={draft.pose_model}
          onChange={(value) => value && set({ pose_model: value as AdvancedSettings['pose_model'] })}
          allowDeselect={false}
        />
        <Select
          label="Frame rate (fps)"
          data={offered.map((fps) => ({ value: String(fps), label: `${fps} fps` }))}
          value={String(draft.framerate)}
          onChange={(value) => {
            if (!value) return;
            const framerate = Number(value);
            set({ framerate, filter_frequency: clamped(draft.filter_frequency, framerate) });
          }}
          allowDeselect={false}
        />
        <Select
          label="Musculoskeletal model"
          data={choiceOptions(choices?.openSimModel, OPENSIM_MODELS)}
          description={runsLine(choices?.openSimModel, draft.openSimModel)}
          value={draft.openSimModel}
          onChange={(value) => value && set({ openSimModel: value as AdvancedSettings['openSimModel'] })}
          allowDeselect={false}
        />
        <Select
          label="Marker augmenter"
          data={choiceOptions(choices?.augmenter_model, AUGMENTER_MODELS)}
          description={runsLine(choices?.augmenter_model, draft.augmenter_model)}
          value={draft.augmenter_model}
          onChange={(value) => value && set({ augmenter_model: value as AdvancedSettings['augmenter_model'] })}
          allowDeselect={false}
        />
        <TextInput
          label="Filter frequency (Hz)"
          description="'default' (12 Hz for gait, otherwise half the frame rate) or a number of Hz up to half the frame rate."
          value={draft.filter_frequency}
          onChange={(event) => set({ filter_frequency: event.currentTarget.value })}
          onBlur={() => set({ filter_frequency: clamped(draft.filter_frequency, draft.framerate) })}
        />
        <Select
          label="Keypoints from the phones"
          data={optionsOf(PHONE_KEYPOINTS_CHOICES)}
          description={
            phoneKeypointsAllowed === false
              ? 'This server takes no keypoints from the phones: it detects them itself.'
              : 'Phones find the keypoints while they record; the server checks them and detects them itself where they fall short.'
          }
          value={draft.phone_keypoints}
          onChange={(value) => value && set({ phone_keypoints: value as AdvancedSettings['phone_keypoints'] })}
          allowDeselect={false}
        />
        <Select
          label="Pose detection rate"
          data={optionsOf(POSE_RATES)}
          description="How often the pose model runs on each camera's frames. As the filter needs (the default): at twice the filter's cutoff, every other frame of a 60 fps gait trial, the frames between filled from those around them; about half the pose time. Every frame: each frame detected, slower."
          value={draft.pose_rate}
          onChange={(value) => value && set({ pose_rate: value as AdvancedSettings['pose_rate'] })}
          allowDeselect={false}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            onClick={() => onSave({ ...draft, filter_frequency: clamped(draft.filter_frequency, draft.framerate) })}
          >
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
