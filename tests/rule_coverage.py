"""Which tests cover each rule of docs/rules/*.md (issue 25).

Every numbered rule (T*, S*, P*) and every flag of a variants table has at least one entry:
"<test file>::<test function>", a test that fails if that rule is implemented wrongly.
``tests/test_rule_coverage.py`` fails when docs/rules gains a rule id or a variant with no test here,
and when a test listed here does not exist. The legality checkers (tests/legality/) cover, at every
decision of many matches, every rule that decides which moves are legal.
"""

LEGALITY = "test_legality.py::test_mask_equals_checker"

SIANTAPPO = {
    "T1": [
        "test_siantappo_rules.py::test_deal_sizes_and_order",
        "test_siantappo_rules.py::test_worked_example_trick_with_bombs",
        "test_siantappo_env.py::test_bad_config_names_the_field",
    ],
    "T2": [
        "test_siantappo_rules.py::test_pair_compares_by_higher_card",
        "test_siantappo_rules.py::test_straights_compare_by_top_card_and_length",
        "test_siantappo_rules.py::test_worked_example_swap_n4",
        LEGALITY,
    ],
    "T3": [
        "test_siantappo_rules.py::test_deal_sizes_and_order",
        "test_siantappo_rules.py::test_stacked_deck_deals_card_i_to_seat_i_mod_n",
        "test_siantappo_rules.py::test_later_rounds_loser_deals_and_leads",
    ],
    "T4": [
        "test_siantappo_rules.py::test_pair_of_twos_and_quads",
        "test_siantappo_rules.py::test_straights_compare_by_top_card_and_length",
        LEGALITY,
    ],
    "T5": [
        "test_siantappo_rules.py::test_pair_compares_by_higher_card",
        "test_siantappo_rules.py::test_straights_compare_by_top_card_and_length",
        LEGALITY,
    ],
    "T6": [
        "test_siantappo_rules.py::test_three_clubs_starts_and_leader_cannot_pass",
        "test_siantappo_rules.py::test_later_rounds_loser_deals_and_leads",
    ],
    "T7": [
        "test_siantappo_rules.py::test_pass_locks_you_out_until_trick_end",
        "test_siantappo_rules.py::test_three_clubs_starts_and_leader_cannot_pass",
        LEGALITY,
    ],
    "T8": [
        "test_siantappo_rules.py::test_worked_example_trick_with_bombs",
        "test_siantappo_rules.py::test_pair_of_twos_and_quads",
        "test_siantappo_rules.py::test_quad_does_not_beat_single_two_and_siantappo_not_pair_of_twos_by_default",
        "test_siantappo_rules.py::test_siantappo_is_no_answer_to_a_pair_of_twos_but_a_quad_is",
        LEGALITY,
    ],
    "T9": [
        "test_siantappo_rules.py::test_lead_passes_to_next_holder_when_trick_winner_is_out",
        "test_siantappo_rules.py::test_worked_example_trick_with_bombs",
    ],
    "T10": ["test_siantappo_rules.py::test_round_end_places_and_rewards"],
    "T11": [
        "test_siantappo_rules.py::test_worked_example_swap_n4",
        "test_siantappo_rules.py::test_swap_n5_third_is_neutral_and_n3_has_no_second_swap",
    ],
    "T12": [
        "test_siantappo_rules.py::test_round_end_places_and_rewards",
        "test_siantappo_env.py::test_invariants_random_matches",
    ],
    "first_lead_must_include_3c": ["test_siantappo_variants.py::test_first_lead_must_include_3c", LEGALITY],
    "starter_card": ["test_siantappo_variants.py::test_starter_card_3s"],
    "deal": [
        "test_siantappo_variants.py::test_deal_13_each",
        "test_siantappo_variants.py::test_deal_13_each_without_starter_dealt_lowest_card_leads",
    ],
    "quad_beats_single_2": ["test_siantappo_variants.py::test_quad_beats_single_2", LEGALITY],
    "long_pair_runs": [
        "test_siantappo_variants.py::test_long_pair_runs",
        "test_siantappo_variants.py::test_long_pair_runs_five_pairs_beat_three_twos_four_pairs_do_not",
        LEGALITY,
    ],
    "siantappo_as_lead": ["test_siantappo_variants.py::test_siantappo_as_lead", LEGALITY],
    "bomb_after_pass": [
        "test_siantappo_variants.py::test_bomb_after_pass",
        "test_siantappo_variants.py::test_bomb_after_pass_a_higher_quad_on_a_quad_is_no_bomb",
        LEGALITY,
    ],
    "swap_second_with": ["test_siantappo_variants.py::test_swap_second_with"],
    "swap_choice": ["test_siantappo_variants.py::test_swap_choice", LEGALITY],
    "no_finish_on_2": ["test_siantappo_variants.py::test_no_finish_on_2"],
}

SUIPI = {
    "S1": [
        "test_suipi_env.py::test_rewards_shared_by_partners_zero_sum_and_per_deal",
        "test_suipi_variants.py::test_three_players",
    ],
    "S2": [
        "test_suipi_rules.py::test_court_cards_11_point_game",
        "test_suipi_variants.py::test_point_game_23_courts_are_numeric",
    ],
    "S3": ["test_suipi_variants.py::test_match_deals_target_and_ties"],
    "S4": [
        "test_suipi_rules.py::test_full_deal_table",
        "test_suipi_variants.py::test_deal_sizes",
        "test_suipi_rules.py::test_whole_deck_single_round_lays_floor_first",
    ],
    "S5": [
        "test_suipi_rules.py::test_s5_spade_rule_and_bottom_of_stock",
        "test_suipi_rules.py::test_floor_dup_rule_variants",
    ],
    "S6": ["test_suipi_env.py::test_every_legal_move_reachable_and_nothing_else"],
    "S7": [
        "test_suipi_rules.py::test_build_example",
        "test_suipi_rules.py::test_locked_build_cannot_be_increased_but_accepts_groups",
    ],
    "S8": [
        "test_suipi_rules.py::test_capture_example",
        "test_suipi_rules.py::test_build_taken_by_opponent_holding_the_value",
    ],
    "S9": [
        "test_suipi_rules.py::test_build_example",
        "test_suipi_rules.py::test_build_taken_or_increased_by_partner_and_opponent_4p",
        "test_suipi_rules.py::test_partner_takes_build",
        "test_suipi_rules.py::test_locked_build_cannot_be_increased_but_accepts_groups",
    ],
    "S10": ["test_suipi_rules.py::test_orphan_rule_and_drop_ban_for_owner"],
    "S11": ["test_suipi_rules.py::test_orphan_rule_and_drop_ban_for_owner"],
    "S12": ["test_suipi_rules.py::test_forced_lock_under_s12", "test_suipi_rules.py::test_court_cards_11_point_game"],
    "S13": [
        "test_suipi_random.py::test_random_matches_invariants",
        "test_suipi_random.py::test_legal_moves_pure_function_matches_engine",
    ],
    "S14": ["test_suipi_rules.py::test_suipi_and_final_card"],
    "S15": ["test_suipi_rules.py::test_last_capturer_takes_the_floor_and_nobody_case"],
    "S16": ["test_suipi_rules.py::test_seed_counting_lines", "test_suipi_rules.py::test_full_deal_table"],
    "S17": [
        "test_suipi_rules.py::test_seed_rule_12a_cards_tie_plus_suipis",
        "test_suipi_rules.py::test_seed_rule_12b_suipis_reduce_the_lead",
        "test_suipi_rules.py::test_sign_flip",
        "test_suipi_rules.py::test_cards_tie_example",
        "test_suipi_rules.py::test_suipis_cancel_one_for_one",
        "test_suipi_rules.py::test_23_point_game_totals",
    ],
    "S18": [
        "test_suipi_variants.py::test_match_deals_target_and_ties",
        "test_suipi_env.py::test_rewards_shared_by_partners_zero_sum_and_per_deal",
    ],
    "point_game": [
        "test_suipi_variants.py::test_point_game_23_courts_are_numeric",
        "test_suipi_rules.py::test_23_point_game_totals",
    ],
    "deal_sizes_4p": ["test_suipi_variants.py::test_deal_sizes"],
    "deal_sizes_2p": ["test_suipi_variants.py::test_deal_sizes"],
    "floor_dup_rule": ["test_suipi_rules.py::test_floor_dup_rule_variants"],
    "unique_floor_during_play": ["test_suipi_variants.py::test_unique_floor_during_play_off"],
    "forced_capture": ["test_suipi_variants.py::test_forced_capture"],
    "maximal_capture": ["test_suipi_variants.py::test_maximal_capture"],
    "sum_group_size": ["test_suipi_variants.py::test_sum_group_size_exactly_2"],
    "builds_enabled": ["test_suipi_variants.py::test_builds_enabled_and_multi_builds"],
    "multi_builds": ["test_suipi_variants.py::test_builds_enabled_and_multi_builds"],
    "max_owned_builds": ["test_suipi_variants.py::test_max_owned_builds"],
    "final_capture_is_suipi": ["test_suipi_variants.py::test_final_capture_is_suipi_flag"],
    "match_deals": ["test_suipi_variants.py::test_match_deals_target_and_ties"],
    "players": ["test_suipi_variants.py::test_three_players"],
}

SAMSIP = {
    "P1": [
        "test_samsip_rules.py::test_first_dealer_and_deal_order",
        "test_samsip_env.py::test_eliminated_players_leave_agents_and_rewards_zero_sum",
        "test_samsip_rules.py::test_stalled_hand_is_void_at_the_3n_th_turn_without_a_stock_draw",
    ],
    "P2": [
        "test_samsip_env.py::test_stacked_deck_jokers_are_counted",
        "test_samsip_engine.py::test_random_matches_invariants",
    ],
    "P3": ["test_samsip_rules.py::test_base_stake_and_bankroll"],
    "P4": [
        "test_samsip_rules.py::test_worked_stakes_doubling_with_elimination",
        "test_samsip_rules.py::test_linear_stakes",
        "test_samsip_rules.py::test_stock_empty_void_hand",
        "test_samsip_rules.py::test_stalled_hand_is_void_at_the_3n_th_turn_without_a_stock_draw",
    ],
    "P5": [
        "test_samsip_rules.py::test_worked_stakes_doubling_with_elimination",
        "test_samsip_rules.py::test_first_dealer_and_deal_order",
        "test_samsip_rules.py::test_stalled_hand_is_void_at_the_3n_th_turn_without_a_stock_draw",
    ],
    "P6": ["test_samsip_rules.py::test_first_dealer_and_deal_order", "test_samsip_env.py::test_stacked_deck_order"],
    "P7": [
        "test_samsip_rules.py::test_worked_pairs",
        "test_samsip_rules.py::test_joker_indicator_two_jokers",
        "test_samsip_rules.py::test_joker_indicator_redraw",
        LEGALITY,
    ],
    "P8": [
        "test_samsip_rules.py::test_win_only_on_six_cards_after_draw",
        "test_samsip_rules.py::test_stall_counter_resets_on_a_stock_draw_and_stall_turns_variant",
        LEGALITY,
    ],
    "P9": [
        "test_samsip_rules.py::test_worked_pairs",
        "test_samsip_rules.py::test_worked_specials",
        "test_samsip_rules.py::test_matcher_exhaustive_on_rank_multisets",
        LEGALITY,
    ],
    "P10": [
        "test_samsip_rules.py::test_pairs_examples_through_the_engine",
        "test_samsip_rules.py::test_win_only_on_six_cards_after_draw",
        "test_samsip_rules.py::test_the_limit_th_take_may_still_win",
        LEGALITY,
    ],
    "P11": ["test_samsip_rules.py::test_stock_empty_void_hand", "test_samsip_rules.py::test_stock_empty_winning_take"],
    "P11a": [
        "test_samsip_rules.py::test_stalled_hand_is_void_at_the_3n_th_turn_without_a_stock_draw",
        "test_samsip_rules.py::test_stall_void_comes_before_the_next_player_may_draw_from_the_stock",
        "test_samsip_rules.py::test_the_limit_th_take_may_still_win",
        "test_samsip_rules.py::test_stall_limit_counts_active_players_only",
        "test_samsip_rules.py::test_take_and_return_matches_end",
    ],
    "P12": [
        "test_samsip_rules.py::test_worked_stakes_doubling_with_elimination",
        "test_samsip_rules.py::test_payer_with_balance_equal_to_stake_is_eliminated",
    ],
    "P13": [
        "test_samsip_rules.py::test_match_ends_with_one_survivor_and_ranking",
        "test_samsip_rules.py::test_max_hands_cap_and_survivor_ranking",
        "test_samsip_rules.py::test_elimination_tiebreak",
    ],
    "stake_progression": ["test_samsip_rules.py::test_linear_stakes"],
    "bankroll": ["test_samsip_rules.py::test_base_stake_and_bankroll"],
    "base_stake": ["test_samsip_rules.py::test_base_stake_and_bankroll"],
    "joker_indicator": [
        "test_samsip_rules.py::test_joker_indicator_two_jokers",
        "test_samsip_rules.py::test_joker_indicator_redraw",
    ],
    "wild_in_specials": [
        "test_samsip_rules.py::test_wild_in_specials",
        "test_samsip_rules.py::test_wild_in_specials_through_the_engine",
        LEGALITY,
    ],
    "special_multiplier": ["test_samsip_rules.py::test_special_multiplier_pays_k_times"],
    "wild_scheme": ["test_samsip_rules.py::test_khi_scheme", LEGALITY],
    "on_stock_empty": ["test_samsip_rules.py::test_stock_empty_reshuffle"],
    "auto_declare": ["test_samsip_rules.py::test_auto_declare_off", LEGALITY],
    "stall_turns": ["test_samsip_rules.py::test_stall_counter_resets_on_a_stock_draw_and_stall_turns_variant"],
    "max_reshuffles": ["test_samsip_rules.py::test_reshuffles_are_bounded"],
}

COVERAGE = {"siantappo": SIANTAPPO, "suipi": SUIPI, "samsip": SAMSIP}
