//! On to Philadelphia behind the engine interface ([`crate::rules::engine::Engine`]). The common
//! words are put into OTP's own ([`Game::own_words`]) and everything else is the engine's
//! existing checks and previews: the interface adds no rule of its own.
//!
//! The views are built in this folder, one file an area: [`sequence`] (the turn, the chit cup,
//! the sequence's buttons, the morale step, rebuilds), [`morale`] (the odds of a morale roll or a
//! rebuild), [`units`] (a unit's choices, movement, sheet, badges), [`fire`] (what a unit may do
//! to an enemy unit, fire bands, the FIRE chart for the dice overlay), [`preview`] (exact odds of
//! a shot or a charge as preview blocks), [`sight`] (the line-of-sight overlay's readout).

pub mod fire;
pub mod morale;
pub mod preview;
pub mod sequence;
pub mod sight;
pub mod units;
pub mod words;

use std::any::Any;

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;

use super::engine::report::refuse;
use super::engine::{Action as OtpAction, Game, Phase};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Aim, Automatic, Badge, ChartGrid, Choice, Engine, Factor, Movement, Preview, RangeBand, Reach, SequenceView, SightReadout, SheetRow, UnitPlan, UnitStatus, UnitStep};
use crate::rules::report::{ChartRead, Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

impl Game {
    /// An action in On to Philadelphia's own words: the common words as OTP says them (`Next` is
    /// whatever the sequence does next: start, draw, end the activation, end the turn).
    pub fn own_words(&self, action: &Action) -> Result<OtpAction, Refusal> {
        Ok(match action.clone() {
            Action::Otp(a) => a,
            Action::Move { unit, steps } => OtpAction::Move { unit, steps },
            Action::ChangeFormation { unit, formation } => OtpAction::ChangeFormation { unit, formation },
            Action::Fire { unit, target } => OtpAction::fire(unit, target),
            Action::Charge { unit, target } => OtpAction::Charge { unit, target },
            Action::MoveLeader { leader, to } => OtpAction::MoveCommander { commander: leader, to },
            Action::JoinUnit { leader, unit } => OtpAction::JoinUnit { commander: leader, unit },
            Action::Next => match self.phase() {
                Phase::Setup => OtpAction::StartGame,
                Phase::Draw => OtpAction::DrawChit,
                Phase::Activation { .. } => OtpAction::EndActivation,
                Phase::Rebuild => OtpAction::EndTurn,
                Phase::Over => return refuse("4.5", "the game is over: the turn limit has passed"),
            },
            // Another rule set's own words mean nothing here.
            other @ Action::Revolution(_) => return Err(Refusal::unruled(RuleSetId::Otp, format!("{other}: an order of another rule set"))),
            Action::Answer { .. } => {
                return refuse("9.4", "On to Philadelphia asks nothing after a roll: a charge's choices (special move, a light target's reaction, countercharge) are made with the order");
            }
            other => return Err(Refusal::unruled(RuleSetId::Otp, format!("{other}: an order of {}, not of On to Philadelphia", other.rules().map_or("another rule set", |r| r.title())))),
        })
    }

    /// Would `apply` take this action? The verdict of the same checks `apply` runs, without dice.
    pub fn check(&self, action: &OtpAction) -> Result<(), Refusal> {
        action.check_numbers(&self.scenario().table)?;
        match action {
            OtpAction::StartGame => self.check_start(),
            OtpAction::DrawChit => self.check_draw(),
            OtpAction::EndActivation => self.check_end_activation().map(|_| ()),
            OtpAction::EndTurn => self.check_end_turn(),
            OtpAction::RemoveMarker { unit, how } => self.check_removal(unit, how),
            OtpAction::Move { unit, steps } => self.check_move(unit, steps),
            OtpAction::ChangeFormation { unit, formation } => self.check_formation(unit, *formation),
            OtpAction::Fire { unit, target, ammo } => self.fire_preview(unit, target, *ammo).map(|_| ()),
            OtpAction::Charge { unit, target } => self.charge_preview(unit, target, Default::default()).map(|_| ()),
            OtpAction::ChargeWith { unit, target, options } => self.charge_preview(unit, target, *options).map(|_| ()),
            OtpAction::AttemptRebuild { unit } => self.check_rebuild(unit),
            OtpAction::SpecialMove { unit, steps } => self.check_special_move(unit, steps),
            OtpAction::Detach { gun } => self.check_detach(gun).map(|_| ()),
            OtpAction::Attach { gun, unit } => self.check_attach(gun, unit).map(|_| ()),
            OtpAction::MoveCommander { commander, to } => self.check_move_commander(commander, *to),
            OtpAction::JoinUnit { commander, unit } => self.check_join_unit(commander, unit),
            OtpAction::DeployInto { unit, place } => self.check_deploy(unit, place),
            OtpAction::Reman { unit } => self.check_reman(unit),
        }
    }
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::Otp
    }
    fn scenario(&self) -> &Scenario {
        Game::scenario(self)
    }
    fn seed(&self) -> u64 {
        Game::seed(self)
    }
    fn world(&self) -> &World {
        Game::world(self)
    }
    fn place(&mut self, unit: Entity, stands: &[Footprint]) -> bool {
        crate::rules::engine::place_stands(self.world_mut(), unit, stands)
    }
    fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let own = self.own_words(&action)?;
        Game::apply(self, own)
    }
    fn check(&self, action: &Action) -> Result<(), Refusal> {
        Game::check(self, &self.own_words(action)?)
    }
    fn preview(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        self.preview_of(&self.own_words(action)?)
    }
    fn actions(&self) -> Vec<Action> {
        Game::actions(self).iter().map(Action::from).collect()
    }
    fn action_count(&self) -> usize {
        Game::actions(self).len()
    }
    fn reports(&self) -> &[Report] {
        Game::reports(self)
    }
    fn summary(&self) -> Option<Summary> {
        Game::summary(self)
    }
    fn sequence(&self) -> SequenceView {
        self.sequence_view()
    }
    fn choices(&self) -> Vec<Choice> {
        self.sequence_choices()
    }
    fn unit_status(&self, unit: Entity) -> UnitStatus {
        self.status_of(unit)
    }
    fn leader_line(&self, leader: Entity) -> String {
        self.commander_line(leader)
    }
    fn track_heading(&self) -> String {
        "The chit cup (4.3)".into()
    }
    fn unit_step(&self) -> Option<UnitStep> {
        self.unit_step_now()
    }
    fn next_is_mechanical(&self) -> bool {
        self.next_is_mechanical_now()
    }
    fn unit_choices(&self, unit: Entity) -> Vec<Choice> {
        self.unit_choices_now(unit)
    }
    fn target_choices(&self, unit: Entity, target: Entity) -> Vec<Choice> {
        self.target_choices_now(unit, target)
    }
    fn movement(&self, unit: Entity) -> Option<Movement> {
        self.movement_now(unit)
    }
    fn move_action(&self, unit: Entity, kind: usize, steps: Vec<MoveStep>) -> Action {
        self.move_action_of(unit, kind, steps)
    }
    fn sheet(&self, unit: Entity) -> Vec<SheetRow> {
        self.sheet_rows(unit)
    }
    fn badges(&self, unit: Entity) -> Vec<Badge> {
        self.unit_badges(unit)
    }
    fn fire_bands(&self, unit: Entity) -> Vec<RangeBand> {
        self.unit_fire_bands(unit)
    }
    fn move_rules(&self) -> &'static crate::table::movement::MoveRules {
        &super::engine::move_rules::OTP
    }
    fn fire_rules(&self) -> &'static crate::table::fire::FireRules {
        &super::fire::range::FIRE
    }
    fn close_range(&self, unit: Entity) -> Option<RangeBand> {
        self.close_range_band(unit)
    }
    fn arc_notes(&self, unit: Entity) -> Vec<String> {
        self.canister_notes(unit)
    }
    fn aim_of(&self, action: &Action) -> Option<Aim> {
        self.aim(action)
    }
    fn futile(&self, action: &Action) -> Option<String> {
        self.futile_shot(action)
    }
    fn brigade_tag(&self, brigade: Entity) -> Option<String> {
        self.chit_tag(brigade)
    }
    fn unit_line(&self, unit: Entity) -> Option<String> {
        self.type_and_cv(unit)
    }
    fn words(&self, topic: crate::rules::engine::Topic) -> Option<String> {
        words::words(topic)
    }
    fn step_heading(&self, section: &str) -> (String, bool) {
        sequence::step_heading(section)
    }
    fn chart_grid(&self, report: &Report, read: &ChartRead) -> Option<ChartGrid> {
        self.fire_chart_grid(report, read)
    }
    fn enfilade_factors(&self, unit: Entity, ball: bool) -> Vec<Factor> {
        self.enfilade_factors_of(unit, ball)
    }
    fn sight_readout(&self, firer: Entity, target: Entity, ball: bool) -> Option<SightReadout> {
        self.sight_readout_of(firer, target, ball)
    }
    fn unit_plan(&self, unit: Entity) -> Option<UnitPlan> {
        self.unit_plan_now(unit)
    }
    fn reach(&self, unit: Entity) -> Option<Reach> {
        self.reach_now(unit)
    }
    fn save_text(&self) -> String {
        self.to_save().to_ron()
    }
    fn snapshot(&self) -> String {
        Game::snapshot(self)
    }
    fn replayed(&self, actions: usize) -> Box<dyn Engine> {
        let mut save = self.to_save();
        save.actions.truncate(actions);
        Box::new(Game::from_save(&save, self.charts().clone()).expect("a prefix of legal actions replays"))
    }
    fn automatic(&self) -> Box<dyn Automatic> {
        Box::new(super::bot::Bot::new())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Automatic for super::bot::Bot {
    fn next_action(&mut self, game: &dyn Engine) -> Option<Action> {
        let g = game.as_any().downcast_ref::<Game>()?;
        super::bot::Bot::next_action(self, g).map(Action::Otp)
    }
}
